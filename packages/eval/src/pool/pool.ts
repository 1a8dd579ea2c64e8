import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { GradeResult } from '@taorl/eval';
import { type BatchReply, type BatchRequest, type GradeTask, progressSlots } from './protocol';
import { graderWorkerSource } from './worker-source';

export interface GraderPoolOptions {
  /** Worker threads (default: available parallelism - 1, at least 1). */
  readonly size?: number;
  /**
   * Longest a single task may run before its worker is terminated and the task graded incorrect with reason
   * "timeout" (default 1500 ms; detected within a tenth of it, so a verdict comes within 2 s). The hard bound behind the in-thread budget.
   */
  readonly taskTimeoutMs?: number;
  /** Tasks sent to a worker per message, answered in one reply; larger batches cost fewer messages (default 32). */
  readonly batchSize?: number;
}

export interface GraderPool {
  readonly size: number;
  /** Grades every task, results in task order. */
  gradeMany(tasks: readonly GradeTask[]): Promise<GradeResult[]>;
  /** Terminates the workers; pending gradeMany calls reject. */
  close(): Promise<void>;
}

interface Batch {
  readonly id: number;
  readonly tasks: readonly GradeTask[];
  /** Where task i of this batch goes in its gradeMany call's results. */
  readonly place: (index: number, result: GradeResult) => void;
  readonly fail: (error: Error) => void;
}

interface Slot {
  worker: Worker;
  readonly progress: Float64Array;
  ready: boolean;
  batch: Batch | null;
  watchdog: NodeJS.Timeout | null;
}

/**
 * A fixed set of worker threads grading in parallel. A task that exceeds its time limit costs its worker, which
 * is terminated and replaced, so one pathological answer can never hang the training loop.
 *
 * Workers reply once per batch; a watchdog per busy worker reads the worker's shared progress (task index and its
 * start time) every tenth of the time limit, and a task running past the limit is the one that hangs: it is
 * graded "timeout", the tasks before it (whose results died with the worker) and after it are queued again.
 */
export function createGraderPool(options: GraderPoolOptions = {}): GraderPool {
  const size = options.size ?? Math.max(1, availableParallelism() - 1);
  if (!Number.isInteger(size) || size < 1) {
    throw new RangeError(`createGraderPool: size must be a positive integer, got ${size}`);
  }
  const taskTimeoutMs = options.taskTimeoutMs ?? 1_500;
  const batchSize = options.batchSize ?? 32;
  if (!(taskTimeoutMs > 0))
    throw new RangeError(`createGraderPool: taskTimeoutMs must be > 0, got ${taskTimeoutMs}`);
  if (!Number.isInteger(batchSize) || batchSize < 1) {
    throw new RangeError(`createGraderPool: batchSize must be a positive integer, got ${batchSize}`);
  }
  const watchInterval = Math.max(5, taskTimeoutMs / 10);
  const source = graderWorkerSource();
  const queue: Batch[] = [];
  let nextBatchId = 0;
  let closed = false;
  // Workers that die before answering (a broken install) would otherwise be respawned forever.
  let consecutiveFailures = 0;
  let broken: Error | null = null;

  // Workers are unref'd: an idle pool never keeps the process alive, while a batch in flight does (its watchdog).
  const spawn = (slot: Slot): Worker => {
    // No inherited flags: the worker is one self-contained CommonJS script (from the sources it loads tsx's API
    // itself), and a parent's flags can break it: under `node --input-type=module -e` every worker would read the
    // script as an ES module and fail on require.
    const worker = new Worker(source, { eval: true, execArgv: [], workerData: slot.progress.buffer });
    worker.unref();
    slot.ready = false;
    worker.on('message', (reply: BatchReply | 'ready') => {
      consecutiveFailures = 0;
      if (reply === 'ready') slot.ready = true;
      else onReply(slot, reply);
      dispatch();
    });
    worker.on('error', (error) => {
      consecutiveFailures += 1;
      if (consecutiveFailures >= 3) broken = new Error(`grader workers keep failing: ${error.message}`);
      slot.batch?.fail(error);
      replace(slot);
      if (broken) for (const batch of queue.splice(0)) batch.fail(broken);
    });
    return worker;
  };

  const slots: Slot[] = Array.from({ length: size }, () => {
    const progress = new Float64Array(new SharedArrayBuffer(progressSlots * Float64Array.BYTES_PER_ELEMENT));
    const slot = { progress, ready: false, batch: null, watchdog: null } as unknown as Slot;
    slot.worker = spawn(slot);
    return slot;
  });

  const dispatch = (): void => {
    for (const slot of slots) {
      if (!slot.ready || slot.batch !== null || queue.length === 0) continue;
      const batch = queue.shift()!;
      slot.batch = batch;
      slot.progress[0] = -1;
      const request: BatchRequest = { batch: batch.id, tasks: batch.tasks };
      slot.worker.postMessage(request);
      watch(slot, batch);
    }
  };

  const watch = (slot: Slot, batch: Batch): void => {
    slot.watchdog = setInterval(() => {
      const [batchId, index, startedAt] = slot.progress;
      if (batchId === batch.id && Date.now() - startedAt! >= taskTimeoutMs) onTimeout(slot, batch, index!);
    }, watchInterval);
  };

  const release = (slot: Slot): void => {
    if (slot.watchdog) clearInterval(slot.watchdog);
    slot.watchdog = null;
    slot.batch = null;
  };

  const onReply = (slot: Slot, reply: BatchReply): void => {
    const batch = slot.batch;
    if (batch === null || batch.id !== reply.batch) return;
    release(slot);
    for (const [index, result] of reply.results.entries()) batch.place(index, result);
  };

  const onTimeout = (slot: Slot, batch: Batch, hung: number): void => {
    // The extraction died with the worker; the main thread never works on model text, so the limit holds for
    // any input.
    batch.place(hung, { correct: false, extracted: null, gold: batch.tasks[hung]!.gold, reason: 'timeout' });
    replace(slot);
    const others = batch.tasks.map((_, index) => index).filter((index) => index !== hung);
    if (others.length > 0) {
      queue.unshift({
        id: nextBatchId++,
        tasks: others.map((index) => batch.tasks[index]!),
        place: (index, result) => batch.place(others[index]!, result),
        fail: batch.fail,
      });
    }
    dispatch();
  };

  const replace = (slot: Slot): void => {
    release(slot);
    slot.ready = false;
    void slot.worker.terminate();
    if (!closed && !broken) slot.worker = spawn(slot);
  };

  return {
    size,
    gradeMany: (tasks) => {
      if (closed) return Promise.reject(new Error('grader pool is closed'));
      if (broken) return Promise.reject(broken);
      if (tasks.length === 0) return Promise.resolve([]);
      return new Promise<GradeResult[]>((resolve, reject) => {
        const results = new Array<GradeResult>(tasks.length);
        let remaining = tasks.length;
        let failed = false;
        for (let start = 0; start < tasks.length; start += batchSize) {
          queue.push({
            id: nextBatchId++,
            tasks: tasks.slice(start, start + batchSize),
            place: (index, result) => {
              results[start + index] = result;
              remaining -= 1;
              if (remaining === 0 && !failed) resolve(results);
            },
            fail: (error) => {
              failed = true;
              reject(error);
            },
          });
        }
        dispatch();
      });
    },
    close: async () => {
      closed = true;
      for (const batch of queue.splice(0)) batch.fail(new Error('grader pool closed'));
      await Promise.all(
        slots.map((slot) => {
          slot.batch?.fail(new Error('grader pool closed'));
          release(slot);
          return slot.worker.terminate();
        }),
      );
    },
  };
}
