import type { GradientSettings, MicroBatch, MicroBatchGradient } from '@taorl/grpo';
import type { GeneratedSequence, SamplingParams } from '../model/policy.js';

/**
 * One `generate` call for a rollout worker (rollout-workers.ts). The sampling parameters travel without `decode`
 * (a function cannot be sent): the worker matches stop strings with its own copy of the tokenizer.
 */
export interface GenerateJob {
  kind: 'generate';
  prompts: Int32Array[];
  sampling: Omit<SamplingParams, 'decode'>;
}

/** One micro-batch of the RL update for a rollout worker: its policy-loss gradient on the replica. */
export interface GradientJob {
  kind: 'gradient';
  micro: MicroBatch;
  settings: GradientSettings;
}

export type RolloutJob = GenerateJob | GradientJob;

/** What a rollout worker answers, by job kind. */
export interface RolloutJobResult {
  generate: GeneratedSequence[];
  gradient: MicroBatchGradient<Float32Array>;
}
