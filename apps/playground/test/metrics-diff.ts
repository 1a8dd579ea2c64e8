/** Fields of a metrics line that are wall-clock measurements, never equal between two runs. */
const TIMED = new Set(['time', 'tokensPerSecond']);

/**
 * The paths where two metrics lines differ: integers (counts, steps, token totals) must be equal, other numbers
 * within `tolerance` relative to the larger (float kernels may round differently), everything else equal; the
 * timed fields are left out.
 */
export function metricsDiff(a: unknown, b: unknown, tolerance: number, path = ''): string[] {
  if (typeof a === 'number' && typeof b === 'number') {
    if (Number.isInteger(a) && Number.isInteger(b)) return a === b ? [] : [`${path}: ${a} vs ${b}`];
    const scale = Math.max(1, Math.abs(a), Math.abs(b));
    return Math.abs(a - b) <= tolerance * scale ? [] : [`${path}: ${a} vs ${b}`];
  }
  if (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((key) => !TIMED.has(key));
    return keys.flatMap((key) =>
      metricsDiff(
        (a as Record<string, unknown>)[key],
        (b as Record<string, unknown>)[key],
        tolerance,
        path === '' ? key : `${path}.${key}`,
      ),
    );
  }
  return Object.is(a, b) ? [] : [`${path}: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`];
}
