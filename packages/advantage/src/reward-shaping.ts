import { readRewards } from './groups';
import { type OverlongOptions, overlongPenaltyFn } from './overlong';
import type { RewardedTrajectory, TrajectoryWithLossMask } from './types';

/** A hook that returns a trajectory's new reward from its current one (applied in order, before advantages). */
export type RewardShaper<T> = (reward: number, trajectory: T, index: number) => number;

export interface ShapedRewards {
  readonly rewards: Float64Array;
  readonly diagnostics: {
    /** Trajectories whose reward changed. */
    readonly shaped: number;
    /** Mean of (shaped - original) over the batch. */
    readonly meanDelta: number;
  };
}

/** Run the reward shapers over the batch; the trajectories are not modified. */
export function shapeRewards<T extends RewardedTrajectory>(
  batch: readonly T[],
  shapers: readonly RewardShaper<T>[],
): ShapedRewards {
  const original = readRewards(batch);
  const rewards = original.slice();
  let shaped = 0;
  let deltaSum = 0;
  batch.forEach((t, i) => {
    let r = rewards[i]!;
    for (const shaper of shapers) r = shaper(r, t, i);
    if (!Number.isFinite(r)) throw new Error(`trajectory ${i}: a reward shaper returned ${r}`);
    rewards[i] = r;
    if (r !== original[i]) shaped++;
    deltaSum += r - original[i]!;
  });
  return { rewards, diagnostics: { shaped, meanDelta: batch.length === 0 ? 0 : deltaSum / batch.length } };
}

/**
 * DAPO's overlong penalty as a reward shaper. Length is the response length in tokens (policy and tool tokens,
 * `lossMask.length`) unless `lengthOf` says otherwise.
 */
export function overlongShaper<T extends TrajectoryWithLossMask>(
  options: OverlongOptions & { readonly lengthOf?: (trajectory: T) => number },
): RewardShaper<T> {
  const { lengthOf = (t: T) => t.lossMask.length, ...penalty } = options;
  const penaltyOf = overlongPenaltyFn(penalty);
  return (reward, trajectory) => reward + penaltyOf(lengthOf(trajectory));
}
