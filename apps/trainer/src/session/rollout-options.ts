import type { RlStepContext } from '@taorl/rl';
import type { RolloutOptions } from '@taorl/rollout';
import type { TrainerConfig } from '../config/trainer-config.js';

/**
 * The rollout options a config gives (rollout.*), all but the seed, which each caller derives for its own batches:
 * sampling at rollout.temperature / topP / topK, or greedy (temperature 0 alone: one answer per prompt).
 * The RL step, held-out evaluation, curation and benchmark evaluation all sample with these.
 */
export function rolloutOptionsOf(config: TrainerConfig, greedy = false): Omit<RolloutOptions, 'seed'> {
  const { rollout } = config;
  return {
    maxTurns: rollout.maxTurns,
    maxResponseTokens: rollout.maxResponseTokens,
    sampling: greedy
      ? { temperature: 0 }
      : { temperature: rollout.temperature, topP: rollout.topP, topK: rollout.topK },
    lanes: rollout.lanes,
    unparseableCall: rollout.unparseableCall,
    ...(rollout.maxWallMs > 0 ? { maxWallMs: rollout.maxWallMs } : {}),
    maxRepeatedCalls: rollout.maxRepeatedCalls,
    checkTokenIntegrity: rollout.checkTokenIntegrity,
  };
}

/** The RL step's overlong shaping a config gives (rl.overlong.*), or null when it is off. */
export function overlongOptionsOf(config: TrainerConfig): RlStepContext['overlong'] {
  const { overlong } = config.rl;
  return overlong.enabled
    ? {
        buffer: overlong.bufferFraction * config.rollout.maxResponseTokens,
        factor: overlong.factor,
        policyTokensOnly: overlong.length === 'policy',
      }
    : null;
}
