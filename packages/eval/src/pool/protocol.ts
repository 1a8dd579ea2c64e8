import type { Gold, GradeOptions, GradeResult } from '@taorl/eval';

/** One response to grade against its gold. */
export interface GradeTask {
  readonly response: string;
  readonly gold: Gold;
  readonly options?: GradeOptions;
}

/** Main thread to worker: grade these tasks in order. */
export interface BatchRequest {
  readonly batch: number;
  readonly tasks: readonly GradeTask[];
}

/** Worker to main thread, once per batch. */
export interface BatchReply {
  readonly batch: number;
  readonly results: readonly GradeResult[];
}

/**
 * Shared progress of a worker, written before each task: [batch id, index of the task being graded, Date.now() at
 * its start]. The main thread reads it to find an overrunning task without a message per task (aligned 64-bit
 * stores do not tear on the platforms Node supports, and the watchdog only needs a recent value).
 */
export const progressSlots = 3;
