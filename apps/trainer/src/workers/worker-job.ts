import type { GradientSettings, MicroBatch, MicroBatchGradient } from '@taorl/grpo';
import type { WeightedTokenBatch } from '@taorl/model';
import type { GeneratedSequence, SamplingParams } from '@taorl/rollout';

/**
 * One `generate` call for a policy worker (policy-workers.ts). The sampling parameters travel without `decode`
 * (a function cannot be sent): the worker matches stop strings with its own copy of the tokenizer.
 */
export interface GenerateJob {
  kind: 'generate';
  prompts: Int32Array[];
  sampling: Omit<SamplingParams, 'decode'>;
}

/** One micro-batch of the RL update for a policy worker: its policy-loss gradient on the replica. */
export interface GradientJob {
  kind: 'gradient';
  micro: MicroBatch;
  settings: GradientSettings;
}

/** One shard of an SFT step's batch for a policy worker: its weighted cross-entropy and gradient on the replica. */
export interface ShardJob {
  kind: 'shard';
  batch: WeightedTokenBatch;
}

export type WorkerJob = GenerateJob | GradientJob | ShardJob;

/** A policy worker's answer to one SFT shard. */
export interface ShardReply {
  /** The shard's weighted loss (see `shardGradient`). */
  loss: number;
  /** Gradient per variable in variable order; null where the loss does not reach the variable. */
  gradients: (Float32Array | null)[];
}

/** What a policy worker answers, by job kind. */
export interface WorkerJobResult {
  generate: GeneratedSequence[];
  gradient: MicroBatchGradient<Float32Array>;
  shard: ShardReply;
}
