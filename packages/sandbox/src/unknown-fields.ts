/** Edit distance (insertions, deletions, substitutions; case differences cost nothing), for did-you-mean hints. */
function distance(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  let previous = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const current = [i];
    for (let j = 1; j <= y.length; j++) {
      current[j] = Math.min(
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
        (previous[j - 1] as number) + (x[i - 1] === y[j - 1] ? 0 : 1),
      );
    }
    previous = current;
  }
  return previous[y.length] as number;
}

/**
 * Throws a TypeError for the first own field of `value` that is not in `known`, so that a misspelled option
 * (`wrkers`, `memoryMB`) fails loudly instead of leaving the default in force. `where` names the object in the
 * message, e.g. `createSandbox` or `createSandbox limits`.
 */
export function rejectUnknownFields(value: object, known: readonly string[], where: string): void {
  for (const field of Object.keys(value)) {
    if (known.includes(field)) continue;
    const [closest] = known
      .map((name) => ({ name, cost: distance(field, name) }))
      .filter(({ cost }) => cost <= Math.max(1, Math.floor(field.length / 3)))
      .sort((a, b) => a.cost - b.cost);
    const hint = closest ? ` (did you mean ${JSON.stringify(closest.name)}?)` : '';
    throw new TypeError(
      `${where}: unknown option ${JSON.stringify(field)}${hint}; known: ${known.join(', ')}`,
    );
  }
}
