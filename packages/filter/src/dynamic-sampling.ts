import { groupMembers } from './groups';
import { checkOptionNames } from './options';
import { correctnessOf, rewardOf } from './readout';
import { filterRegistry } from './registry';
import type { Filter } from './types';
import { applyVerdicts, defaultPositions, type Verdict } from './verdicts';

export interface DynamicSamplingOptions {
  /** The per-trajectory value whose spread a group needs: `reward` (default) or `correct` (accuracy). */
  readonly metric?: 'reward' | 'correct';
  /** Keep groups of one trajectory, whose spread is undefined (default true, as verl's filter_groups). */
  readonly keepSingletons?: boolean;
}

export const ZERO_STD = 'zero-std';

/**
 * DAPO's dynamic sampling (verl's filter_groups): drop a group whose members all share one metric value, so
 * its group-relative advantages would all be zero. Equality is exact; a float std would keep groups whose only
 * spread is rounding noise.
 */
export function dynamicSampling(options: DynamicSamplingOptions = {}): Filter {
  const name = 'dynamic-sampling';
  checkOptionNames(name, options, ['metric', 'keepSingletons']);
  const metric = options.metric ?? 'reward';
  if (metric !== 'reward' && metric !== 'correct') {
    throw new Error(`${name}: option 'metric' must be 'reward' or 'correct', got ${JSON.stringify(metric)}`);
  }
  const keepSingletons = options.keepSingletons ?? true;
  if (typeof keepSingletons !== 'boolean') {
    throw new Error(
      `${name}: option 'keepSingletons' must be a boolean, got ${JSON.stringify(keepSingletons)}`,
    );
  }
  return {
    name,
    apply(batch, positions) {
      const at = defaultPositions(batch.length, positions);
      const metricOf = (i: number): number =>
        metric === 'reward' ? rewardOf(batch[i]!, at[i]!) : correctnessOf(batch[i]!, at[i]!) ? 1 : 0;
      const verdicts: Verdict[] = new Array<Verdict>(batch.length).fill(null);
      for (const members of groupMembers(batch, at).values()) {
        if (members.length === 1 && keepSingletons) continue;
        const first = metricOf(members[0]!);
        if (members.every((i) => metricOf(i) === first)) {
          for (const i of members) verdicts[i] = { action: 'drop', reason: ZERO_STD };
        }
      }
      return applyVerdicts(name, batch, at, verdicts);
    },
  };
}

filterRegistry.registerBuiltIn('dynamic-sampling', dynamicSampling);
