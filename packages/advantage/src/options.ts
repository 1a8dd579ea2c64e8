/**
 * Reject option fields a component does not know, so a typo in a config file fails loudly instead of silently
 * falling back to a default.
 */
export function checkOptionNames(where: string, options: object, known: readonly string[]): void {
  for (const key of Object.keys(options)) {
    if (!known.includes(key)) {
      throw new Error(`${where}: unknown option '${key}' (known options: ${known.join(', ')})`);
    }
  }
}

/** A finite number within [min, max] (bounds inclusive unless stated), or the default when undefined. */
export function numberOption(
  where: string,
  field: string,
  value: unknown,
  fallback: number,
  range: { min?: number; max?: number; minExclusive?: boolean } = {},
): number {
  const v = value ?? fallback;
  const { min = -Infinity, max = Infinity, minExclusive = false } = range;
  const ok = typeof v === 'number' && Number.isFinite(v) && (minExclusive ? v > min : v >= min) && v <= max;
  if (!ok) {
    const bounds = `${minExclusive ? '(' : '['}${min}, ${max}]`;
    throw new Error(
      `${where}: option '${field}' must be a finite number in ${bounds}, got ${JSON.stringify(v)}`,
    );
  }
  return v as number;
}

export function choiceOption<C extends string>(
  where: string,
  field: string,
  value: unknown,
  fallback: C,
  choices: readonly C[],
): C {
  const v = value ?? fallback;
  if (!choices.includes(v as C)) {
    throw new Error(
      `${where}: option '${field}' must be one of ${choices.join(', ')}, got ${JSON.stringify(v)}`,
    );
  }
  return v as C;
}
