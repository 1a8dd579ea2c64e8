import type { GroupId, RewardedTrajectory } from './types';

/** Batch indices of each group, groups in order of first appearance. */
export function groupIndex(groupIds: ArrayLike<GroupId>): Int32Array[] {
  const byId = new Map<GroupId, number[]>();
  for (let i = 0; i < groupIds.length; i++) {
    const id = groupIds[i];
    if (typeof id !== 'string' && typeof id !== 'number') {
      throw new Error(`trajectory ${i}: field 'groupId' must be a string or a number, got ${String(id)}`);
    }
    const members = byId.get(id);
    if (members === undefined) byId.set(id, [i]);
    else members.push(i);
  }
  return [...byId.values()].map((members) => Int32Array.from(members));
}

/** Rewards as float64, from `rewards` when given, else from each trajectory's `reward`; NaN is an error. */
export function readRewards(batch: readonly RewardedTrajectory[], rewards?: ArrayLike<number>): Float64Array {
  if (rewards !== undefined && rewards.length !== batch.length) {
    throw new Error(`rewards has ${rewards.length} entries for a batch of ${batch.length} trajectories`);
  }
  const out = new Float64Array(batch.length);
  for (let i = 0; i < batch.length; i++) {
    const r = rewards === undefined ? batch[i]!.reward : rewards[i];
    if (typeof r !== 'number' || !Number.isFinite(r)) {
      const field = rewards === undefined ? `field 'reward'` : `rewards[${i}]`;
      throw new Error(`trajectory ${i}: ${field} must be a finite number, got ${String(r)}`);
    }
    out[i] = r;
  }
  return out;
}
