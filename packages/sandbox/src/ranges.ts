/**
 * The ranges of the sandbox's numeric options, in one place: each option is an integer within its range, or an
 * error naming the option, its range and the value (docs/explanation/sandbox.md lists them).
 */

/** The longest delay a Node timer takes: longer ones fire at once (setTimeout's 32-bit signed milliseconds). */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The most local workers: each is a Python process (about 90 MB with sympy and numpy preloaded) in a sandbox of its
 * own, started at once, so a typo such as 100000 would start processes until the machine runs out.
 */
export const MAX_WORKERS = 256;

/** The most runs at once a server hands its sandbox, or a client sends a SandboxFusion server. */
export const MAX_CONCURRENCY = 4096;

/** The most requests a server lets wait by count (its memory bound, maxQueueBytes, applies as well). */
export const MAX_QUEUE = 1_000_000;

/** The most output kept per stream: V8's strings stop at about 512 M characters, and a run's output becomes one. */
export const MAX_OUTPUT_BYTES = 256 * 1024 * 1024;

/** An integer range; `max` defaults to Number.MAX_SAFE_INTEGER (above it integers are no longer exact). */
export interface IntegerRange {
  min: number;
  max?: number;
}

/** `value`, or `fallback` when it is undefined, checked against `range`; `where` leads the error. */
export function integerIn(
  value: unknown,
  fallback: number,
  field: string,
  where: string,
  { min, max = Number.MAX_SAFE_INTEGER }: IntegerRange,
): number {
  const resolved = value ?? fallback;
  if (!Number.isInteger(resolved) || (resolved as number) < min || (resolved as number) > max) {
    throw new TypeError(
      `${where}: ${field} must be an integer from ${min} to ${max}, got ${JSON.stringify(value) ?? String(value)}`,
    );
  }
  return resolved as number;
}
