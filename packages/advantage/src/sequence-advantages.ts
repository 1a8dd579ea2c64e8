import { getAdvantageEstimator } from './estimator-registry';
import type { AdvantageEstimator } from './estimators';
import { groupIndex, readRewards } from './groups';
import type { RewardedTrajectory } from './types';

export interface SequenceAdvantageOptions {
  /** An estimator or its registered name (default `grpo`). */
  readonly estimator?: AdvantageEstimator | string;
  /** Rewards to use instead of each trajectory's `reward` (e.g. after reward shaping). */
  readonly rewards?: ArrayLike<number>;
}

export interface SequenceAdvantageDiagnostics {
  readonly estimator: string;
  readonly groups: number;
  readonly singletonGroups: number;
  /** Groups whose members all got advantage 0 (equal rewards or singletons): no gradient from them. */
  readonly zeroSignalGroups: number;
  readonly meanAbsAdvantage: number;
}

export interface SequenceAdvantages {
  /** One advantage per trajectory, float64. */
  readonly advantages: Float64Array;
  readonly diagnostics: SequenceAdvantageDiagnostics;
}

/** Group-relative advantage of each trajectory. */
export function sequenceAdvantages(
  batch: readonly RewardedTrajectory[],
  options: SequenceAdvantageOptions = {},
): SequenceAdvantages {
  const { estimator = 'grpo' } = options;
  const impl = typeof estimator === 'string' ? getAdvantageEstimator(estimator) : estimator;
  const rewards = readRewards(batch, options.rewards);
  const groups = groupIndex(batch.map((t) => t.groupId));
  const advantages = impl.estimate(rewards, groups);
  if (advantages.length !== batch.length) {
    throw new Error(
      `estimator '${impl.name}' returned ${advantages.length} advantages for ${batch.length} rewards`,
    );
  }
  let singletonGroups = 0;
  let zeroSignalGroups = 0;
  for (const members of groups) {
    if (members.length === 1) singletonGroups++;
    if (members.every((i) => advantages[i] === 0)) zeroSignalGroups++;
  }
  let absSum = 0;
  for (let i = 0; i < advantages.length; i++) {
    const a = advantages[i]!;
    if (!Number.isFinite(a)) throw new Error(`estimator '${impl.name}' gave trajectory ${i} advantage ${a}`);
    absSum += Math.abs(a);
  }
  return {
    advantages,
    diagnostics: {
      estimator: impl.name,
      groups: groups.length,
      singletonGroups,
      zeroSignalGroups,
      meanAbsAdvantage: batch.length === 0 ? 0 : absSum / batch.length,
    },
  };
}
