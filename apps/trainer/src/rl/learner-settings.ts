import { type RolloutCorrectionOptions, resolveRolloutCorrection } from '@taorl/grpo';
import { ConfigError } from '../config/config-error.js';
import type { TrainerConfig } from '../config/trainer-config.js';

/** Where the loss's pi_old comes from, and the rollout correction, as the config asks. */
export interface LearnerSettings {
  oldLogProbs: 'trainer' | 'rollout';
  rolloutCorrection: RolloutCorrectionOptions | null;
}

/**
 * rl.oldLogProbs (default: trainer in remote mode, where an engine samples; rollout locally, where the trained
 * policy samples and both are the same model) and rl.correction (default: on exactly when an engine samples and pi_old
 * is the trainer's), checked before any step: the correction needs the trainer's pi_old, and its options are checked
 * by @taorl/grpo, the error naming the config field.
 */
export function learnerSettings(config: TrainerConfig, source: string): LearnerSettings {
  const { rl, remote } = config;
  const oldLogProbs = rl.oldLogProbs ?? (remote.endpoints.length > 0 ? 'trainer' : 'rollout');
  const { enabled: asked, rejectionThreshold, ...options } = rl.correction;
  const rolloutCorrection = {
    ...options,
    ...(rejectionThreshold === undefined ? {} : { rejectionThreshold }),
  };
  // Checked whether or not it is on: a wrong value in the file is an error even while the correction is off.
  try {
    resolveRolloutCorrection(rolloutCorrection);
  } catch (error) {
    throw new ConfigError(source, 'rl.correction', (error as Error).message);
  }
  // With an engine sampling, the trainer's pi_old alone would treat rollouts from weights reloadEvery steps old as
  // on-policy; the correction's weights carry that lag as well as the numeric mismatch (verl's decoupled mode).
  const enabled = asked ?? (remote.endpoints.length > 0 && oldLogProbs === 'trainer');
  if (!enabled) return { oldLogProbs, rolloutCorrection: null };
  if (oldLogProbs !== 'trainer') {
    throw new ConfigError(
      source,
      'rl.correction.enabled',
      "the rollout correction weighs by the trainer's pi_old over the rollout's; set rl.oldLogProbs: trainer",
    );
  }
  return { oldLogProbs, rolloutCorrection };
}
