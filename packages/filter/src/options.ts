/**
 * Reject option fields a filter does not know, so a typo in a config file fails loudly instead of silently
 * falling back to a default.
 */
export function checkOptionNames(where: string, options: object, known: readonly string[]): void {
  for (const key of Object.keys(options)) {
    if (!known.includes(key)) {
      throw new Error(`${where}: unknown option '${key}' (known options: ${known.join(', ')})`);
    }
  }
}

export function checkMode(where: string, mode: unknown): 'drop' | 'mask' {
  if (mode !== 'drop' && mode !== 'mask') {
    throw new Error(`${where}: option 'mode' must be 'drop' or 'mask', got ${JSON.stringify(mode)}`);
  }
  return mode;
}

export function checkInteger(where: string, field: string, value: unknown, min: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
    throw new Error(`${where}: option '${field}' must be an integer >= ${min}, got ${JSON.stringify(value)}`);
  }
  return value;
}

/** One of the `known` values of an option, else an error naming the option and the values it takes. */
export function checkChoice<T extends string>(
  name: string,
  field: string,
  value: unknown,
  known: readonly T[],
): T {
  if (!known.includes(value as T)) {
    throw new Error(`${name}: option '${field}' must be ${known.join(' or ')}, got ${JSON.stringify(value)}`);
  }
  return value as T;
}
