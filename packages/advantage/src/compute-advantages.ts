import type { AdvantageEstimator } from './estimators';
import { type SequenceAdvantageDiagnostics, sequenceAdvantages } from './sequence-advantages';
import { getEntropyShaper } from './shaper-registry';
import type { EntropyShaper, ShapingDiagnostics } from './shaping';
import { tokenAdvantages } from './token-advantages';
import type { AdvantageLayout, RewardedTrajectory, ShapingTrajectory, TokenAdvantages } from './types';

export interface ComputeAdvantagesOptions {
  /** An estimator or its registered name (default `grpo`). */
  readonly estimator?: AdvantageEstimator | string;
  /** A shaper or its registered name (default `tao`; `none` turns the bonus off). */
  readonly shaper?: EntropyShaper | string;
  /** Rewards to use instead of each trajectory's `reward` (e.g. from `shapeRewards`). */
  readonly rewards?: ArrayLike<number>;
  readonly layout?: AdvantageLayout;
}

export interface ComputedAdvantages {
  /** One group-relative advantage per trajectory. */
  readonly sequence: Float64Array;
  /** Shaped per-token advantages, zero where lossMask is 0. */
  readonly tokens: TokenAdvantages;
  readonly diagnostics: {
    readonly sequence: SequenceAdvantageDiagnostics;
    readonly shaping: ShapingDiagnostics;
  };
}

/** The advantage stage of an RL step: group advantages, broadcast over policy tokens, entropy shaping. */
export function computeAdvantages(
  batch: readonly (RewardedTrajectory & ShapingTrajectory)[],
  options: ComputeAdvantagesOptions = {},
): ComputedAdvantages {
  const { shaper = 'tao', layout = 'packed' } = options;
  const sequence = sequenceAdvantages(batch, { estimator: options.estimator, rewards: options.rewards });
  const tokens = tokenAdvantages(batch, sequence.advantages, { layout });
  // The broadcast rows are ours alone, so the shaper may write into them.
  const shaped = (typeof shaper === 'string' ? getEntropyShaper(shaper) : shaper).shape(batch, tokens, {
    inPlace: true,
  });
  return {
    sequence: sequence.advantages,
    tokens: shaped.advantages,
    diagnostics: { sequence: sequence.diagnostics, shaping: shaped.diagnostics },
  };
}
