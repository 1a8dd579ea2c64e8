import type { BackendChoice } from '@taorl/grpo';
import type { ModelConfig } from '../model/config.js';
import type { WeightedTokenBatch } from './token-batch.js';

/** Main thread to gradient worker, first message: the backend to start and the replica's weights. */
export interface StartReplica {
  kind: 'start';
  backend: BackendChoice | readonly BackendChoice[];
  config: ModelConfig;
  /** Hugging Face tensors of the main policy (its `toCheckpoint()`). */
  tensors: Map<string, Float32Array>;
}

/** Main thread to gradient worker before each step's shard: every variable's current values, in variable order. */
export interface ReplaceWeights {
  kind: 'weights';
  values: Float32Array[];
}

/** Main thread to gradient worker: the gradient of this shard, please. */
export interface ShardRequest {
  kind: 'shard';
  batch: WeightedTokenBatch;
}

export type GradientWorkerRequest = StartReplica | ReplaceWeights | ShardRequest;

/** Gradient worker to main thread, one per `ShardRequest`, in order. */
export interface ShardReply {
  kind: 'shard';
  /** The shard's weighted loss (see `shardGradient`). */
  loss: number;
  /** Gradient per variable in variable order; null where the loss does not reach the variable. */
  gradients: (Float32Array | null)[];
}

/** Gradient worker to main thread: a message failed; the worker exits after sending it. */
export interface WorkerFailure {
  kind: 'failed';
  message: string;
}

export type GradientWorkerReply = ShardReply | WorkerFailure;
