import type { Gold, GradeOptions, GradeResult } from '../grade';

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
 * Shared progress of a worker, written with Atomics before each task: [batch id, index of the task being graded].
 * The main thread reads it to find a task that stopped making progress without a message per task.
 */
export const progressSlots = 2;
