import type { BackendChoice } from '@taorl/grpo';
import type { ModelConfig } from '@taorl/model';
import type { LoadedPlugin } from '../plugins/plugin-modules.js';

// The messages between a `ReplicaWorkers` pool (replica-workers.ts) and its threads (replica-host.ts): start a
// replica, replace its weights, run a job of the pool's kind (an SFT gradient shard, a rollout generate call).

/** Main thread to worker, first message: the backend to start, the replica's weights and the job kind's setup. */
export interface StartReplica<Setup> {
  kind: 'start';
  backend: BackendChoice | readonly BackendChoice[];
  config: ModelConfig;
  /** Hugging Face tensors of the main policy (its `toCheckpoint()`). */
  tensors: Map<string, Float32Array>;
  /** The plug-in modules the main thread loaded (plugin-modules.ts), imported first so their names resolve. */
  plugins: readonly LoadedPlugin[];
  /** How long each may take to load (the config's pluginLoadTimeoutMs). */
  pluginLoadTimeoutMs: number;
  setup: Setup;
}

/** Main thread to worker: every variable's current values, in variable order, applied before the next job. */
export interface ReplaceWeights {
  kind: 'weights';
  values: Float32Array[];
}

/** Main thread to worker: one job; answered by one `JobDone` (or a `ReplicaFailure`), in order. */
export interface RunJob<Job> {
  kind: 'job';
  job: Job;
}

/** How an injected fault makes the next job fail: an exception in it, or the thread exiting. */
export type FaultMode = 'throw' | 'exit';

/** Test hook: the worker's next job fails this way (tests of the pool's failure path). */
export interface InjectFault {
  kind: 'fault';
  mode: FaultMode;
}

export type ReplicaRequest<Setup, Job> = StartReplica<Setup> | ReplaceWeights | RunJob<Job> | InjectFault;

/** Worker to main thread: a job's result. */
export interface JobDone<Result> {
  kind: 'done';
  result: Result;
}

/** Worker to main thread: a message failed; the worker handles nothing more after sending it. */
export interface ReplicaFailure {
  kind: 'failed';
  message: string;
}

export type ReplicaReply<Result> = JobDone<Result> | ReplicaFailure;

/** The exit code of a worker whose injected fault is 'exit'. */
export const INJECTED_EXIT_CODE = 70;
