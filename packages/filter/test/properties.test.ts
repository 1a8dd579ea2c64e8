import { seededRandom } from '@taorl/eval';
import { describe, expect, it } from 'vitest';
import { dynamicSampling, type FilterMode, toolAwareFilter, voidTurn } from '../src/index';
import { freezeBatch, randomBatch, snapshot, type TestTrajectory } from './random';

/**
 * TAO-RL's C1 + C2 written out directly, as the reference the filter must agree with; a trajectory with a tool
 * outage (a `sandbox_error` call) leaves the batch in either mode.
 */
function referenceToolAware(batch: readonly TestTrajectory[], mode: FilterMode, minGroupSize: number) {
  const outage = batch.map((t) => t.toolCalls.some((c) => c.status === 'sandbox_error'));
  const survivesC1 = batch.map(
    (t, i) => !outage[i] && (t.toolCalls.length === 0 || t.toolCalls.some((c) => c.status === 'ok')),
  );
  const inGroup = new Map<string, number[]>();
  batch.forEach((t, i) => {
    if ((mode === 'mask' && !outage[i]) || survivesC1[i]) {
      inGroup.set(t.groupId, [...(inGroup.get(t.groupId) ?? []), i]);
    }
  });
  const kept: number[] = [];
  for (const members of inGroup.values()) {
    const rho = members.filter((i) => batch[i]!.correct).length / members.length;
    if (members.length >= minGroupSize && rho > 0 && rho < 1) kept.push(...members);
  }
  return {
    kept: kept.sort((a, b) => a - b),
    masked: mode === 'mask' ? batch.flatMap((_, i) => (survivesC1[i] || outage[i] ? [] : [i])) : [],
  };
}

describe('filter properties over seeded random batches', () => {
  it('toolAwareFilter matches the reference, partitions the batch and never mutates it', () => {
    const random = seededRandom(20260101);
    for (let trial = 0; trial < 300; trial++) {
      const batch = freezeBatch(randomBatch(random));
      const before = snapshot(batch);
      const mode: FilterMode = random() < 0.5 ? 'drop' : 'mask';
      const minGroupSize = 1 + Math.floor(random() * 3);
      const result = toolAwareFilter({ mode, minGroupSize }).apply(batch);
      const reference = referenceToolAware(batch, mode, minGroupSize);

      expect(result.keptIndices).toEqual(reference.kept);
      expect(result.masked.map((m) => m.index)).toEqual(reference.masked);
      // Kept and dropped partition the batch; counts per reason add up.
      const dropped = result.dropped.map((d) => d.index);
      expect([...result.keptIndices, ...dropped].sort((a, b) => a - b)).toEqual(batch.map((_, i) => i));
      const counted = Object.values(result.stats.dropped).reduce((a, b) => a + b, 0);
      expect(counted).toBe(result.dropped.length);
      for (const d of result.dropped) expect(d.item).toBe(batch[d.index]);
      // Kept items are the inputs, or zero-mask copies of exactly the masked ones.
      const maskedSet = new Set(result.masked.map((m) => m.index));
      result.kept.forEach((item, k) => {
        const index = result.keptIndices[k]!;
        if (maskedSet.has(index)) {
          expect(item).not.toBe(batch[index]);
          expect(item.lossMask!.every((v) => v === 0)).toBe(true);
          expect(item.lossMask!.length).toBe(batch[index]!.lossMask.length);
        } else {
          expect(item).toBe(batch[index]);
        }
      });
      // The histogram counts every group C2 saw.
      const { histogram, groups } = result.stats.passRates!;
      expect(histogram.reduce((a, b) => a + b, 0)).toBe(groups.length);
      expect(snapshot(batch)).toBe(before);
    }
  });

  it('dynamicSampling keeps exactly the groups with a reward spread (or of one member)', () => {
    const random = seededRandom(7);
    for (let trial = 0; trial < 200; trial++) {
      const batch = randomBatch(random).map((t) => ({ ...t, reward: Math.round(random() * 2) / 2 }));
      const result = dynamicSampling().apply(batch);
      const kept = new Set(result.keptIndices);
      batch.forEach((t, i) => {
        const rewards = batch.filter((u) => u.groupId === t.groupId).map((u) => u.reward);
        const spread = rewards.length === 1 || Math.max(...rewards) > Math.min(...rewards);
        expect(kept.has(i)).toBe(spread);
      });
    }
  });

  it('voidTurn touches exactly the flagged trajectories', () => {
    const random = seededRandom(11);
    for (let trial = 0; trial < 100; trial++) {
      const batch = freezeBatch(randomBatch(random));
      const result = voidTurn().apply(batch);
      expect(result.masked.map((m) => m.index)).toEqual(batch.flatMap((t, i) => (t.voidTurn ? [i] : [])));
      expect(result.kept).toHaveLength(batch.length);
    }
  });
});
