import type { SamplingParams } from '../model/policy.js';

/**
 * One `generate` call for a rollout worker (generation-workers.ts). The sampling parameters travel without
 * `decode` (a function cannot be sent): the worker matches stop strings with its own copy of the tokenizer.
 */
export interface GenerateJob {
  prompts: Int32Array[];
  sampling: Omit<SamplingParams, 'decode'>;
}
