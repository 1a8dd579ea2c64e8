import { estimatorRegistry } from './estimator-registry';
import { checkOptionNames, choiceOption, numberOption } from './options';

/**
 * A group-relative advantage estimator: rewards [n] and the member indices of each group in, one sequence
 * advantage per trajectory [n] out (float64). Pure: never writes to its inputs.
 */
export interface AdvantageEstimator {
  readonly name: string;
  estimate(rewards: Float64Array, groups: readonly Int32Array[]): Float64Array;
}

/**
 * A group of one has no baseline. `zero` (DECISION, default): its advantage is 0, no signal. `verl`: verl's
 * behaviour (mean 0, std 1, so the raw reward leaks through as the advantage).
 */
export type SingletonPolicy = 'zero' | 'verl';

export interface GrpoOptions {
  /** Added to the group std before dividing (default 1e-6, verl's epsilon; > 0 so equal rewards give 0). */
  readonly epsilon?: number;
  readonly singleton?: SingletonPolicy;
}

export interface GroupBaselineOptions {
  readonly singleton?: SingletonPolicy;
}

/** Apply `perGroup` to each group's rewards; groups of one follow the singleton policy. */
function groupwise(
  name: string,
  singleton: SingletonPolicy,
  singletonValue: (reward: number) => number,
  perGroup: (rewards: Float64Array, members: Int32Array, out: Float64Array) => void,
): AdvantageEstimator {
  return {
    name,
    estimate(rewards, groups) {
      const out = new Float64Array(rewards.length);
      for (const members of groups) {
        if (members.length === 1) {
          const i = members[0]!;
          out[i] = singleton === 'zero' ? 0 : singletonValue(rewards[i]!);
        } else {
          perGroup(rewards, members, out);
        }
      }
      return out;
    },
  };
}

function groupMean(rewards: Float64Array, members: Int32Array): number {
  let sum = 0;
  for (const i of members) sum += rewards[i]!;
  return sum / members.length;
}

/**
 * GRPO (verl compute_grpo_outcome_advantage): A_i = (r_i - mean_g) / (std_g + eps), std unbiased (Bessel).
 */
export function grpoEstimator(options: GrpoOptions = {}): AdvantageEstimator {
  checkOptionNames('grpo', options, ['epsilon', 'singleton']);
  const eps = numberOption('grpo', 'epsilon', options.epsilon, 1e-6, { min: 0, minExclusive: true });
  const singleton = choiceOption('grpo', 'singleton', options.singleton, 'zero', ['zero', 'verl']);
  return groupwise(
    'grpo',
    singleton,
    (r) => r / (1 + eps),
    (rewards, members, out) => {
      const mean = groupMean(rewards, members);
      let squares = 0;
      for (const i of members) squares += (rewards[i]! - mean) ** 2;
      const std = Math.sqrt(squares / (members.length - 1));
      for (const i of members) out[i] = (rewards[i]! - mean) / (std + eps);
    },
  );
}

/** Dr.GRPO (Liu et al. 2025, "Understanding R1-Zero-Like Training"): A_i = r_i - mean_g, no std division. */
export function drGrpoEstimator(options: GroupBaselineOptions = {}): AdvantageEstimator {
  checkOptionNames('drgrpo', options, ['singleton']);
  const singleton = choiceOption('drgrpo', 'singleton', options.singleton, 'zero', ['zero', 'verl']);
  return groupwise(
    'drgrpo',
    singleton,
    (r) => r,
    (rewards, members, out) => {
      const mean = groupMean(rewards, members);
      for (const i of members) out[i] = rewards[i]! - mean;
    },
  );
}

/**
 * RLOO (Ahmadian et al. 2024; verl compute_rloo_outcome_advantage): A_i = r_i - mean of the other members
 * = n / (n - 1) * (r_i - mean_g).
 */
export function rlooEstimator(options: GroupBaselineOptions = {}): AdvantageEstimator {
  checkOptionNames('rloo', options, ['singleton']);
  const singleton = choiceOption('rloo', 'singleton', options.singleton, 'zero', ['zero', 'verl']);
  return groupwise(
    'rloo',
    singleton,
    (r) => r,
    (rewards, members, out) => {
      const n = members.length;
      let sum = 0;
      for (const i of members) sum += rewards[i]!;
      for (const i of members) out[i] = rewards[i]! - (sum - rewards[i]!) / (n - 1);
    },
  );
}

estimatorRegistry.registerBuiltIn('grpo', grpoEstimator);
estimatorRegistry.registerBuiltIn('drgrpo', drGrpoEstimator);
estimatorRegistry.registerBuiltIn('rloo', rlooEstimator);
