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

/** Worker to main thread: the result of task `index` of a batch (sent one by one, so a hang is pinned down). */
export interface TaskReply {
  readonly batch: number;
  readonly index: number;
  readonly result: GradeResult;
}
