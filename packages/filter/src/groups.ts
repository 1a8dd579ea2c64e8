import type { FilterableTrajectory, GroupId } from './types';

/** Batch indices per group id, groups in order of first appearance. */
export function groupMembers(
  batch: readonly FilterableTrajectory[],
  positions: readonly number[],
): Map<GroupId, number[]> {
  const groups = new Map<GroupId, number[]>();
  batch.forEach((t, i) => {
    if (typeof t.groupId !== 'string' && typeof t.groupId !== 'number') {
      throw new Error(
        `trajectory ${positions[i]}: field 'groupId' must be a string or a number, got ${String(t.groupId)}`,
      );
    }
    const members = groups.get(t.groupId);
    if (members === undefined) groups.set(t.groupId, [i]);
    else members.push(i);
  });
  return groups;
}
