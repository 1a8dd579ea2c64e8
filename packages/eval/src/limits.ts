/**
 * Bounds on every comparison. Grading runs inline in the RL loop on untrusted model output, so each stage has a
 * cheap guard (length, nesting, size of exact numbers) and a time budget; exceeding one yields a "not equivalent"
 * verdict with a reason instead of a hang.
 */
export interface Limits {
  /** Longest answer string (after extraction) that is parsed at all. */
  readonly maxAnswerLength: number;
  /** Deepest bracket nesting accepted by the parser. */
  readonly maxDepth: number;
  /** Wall-clock budget of one comparison, in milliseconds. */
  readonly timeBudgetMs: number;
}

export const defaultLimits: Limits = { maxAnswerLength: 2_000, maxDepth: 64, timeBudgetMs: 1_000 };

/** Raised when an input or an intermediate value is beyond the size a grader should spend effort on. */
export class TooLargeError extends Error {
  override readonly name = 'TooLargeError';
}

/** Raised when a comparison exceeds its time budget. */
export class TimeoutError extends Error {
  override readonly name = 'TimeoutError';
}

/** A deadline checked at loop heads; the check itself is cheap (a counter) and reads the clock rarely. */
export class Deadline {
  private ticks = 0;
  private readonly endsAt: number;

  constructor(budgetMs: number) {
    this.endsAt = Date.now() + budgetMs;
  }

  check(): void {
    this.ticks += 1;
    if ((this.ticks & 255) === 0 && Date.now() > this.endsAt) {
      throw new TimeoutError('comparison exceeded its time budget');
    }
  }
}
