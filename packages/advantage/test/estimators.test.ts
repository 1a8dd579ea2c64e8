import { seededRandom } from '@taorl/eval';
import { describe, expect, it } from 'vitest';
import {
  advantageEstimatorNames,
  drGrpoEstimator,
  getAdvantageEstimator,
  groupIndex,
  grpoEstimator,
  registerAdvantageEstimator,
  rlooEstimator,
  sequenceAdvantages,
} from '../src/index';
import { randomBatch } from './random';
import { groupsOf, referenceGrpo } from './reference';

const batchOf = (rewards: number[], groupIds: number[]) =>
  rewards.map((reward, i) => ({ reward, groupId: groupIds[i]! }));

describe('group estimators', () => {
  it('grpo: (r - mean) / (unbiased std + 1e-6), worked by hand', () => {
    // Group 0: rewards 1, 0, 0, 1 -> mean 0.5, unbiased std sqrt(1/3).
    const { advantages } = sequenceAdvantages(batchOf([1, 0, 0, 1], [0, 0, 0, 0]));
    const a = 0.5 / (Math.sqrt(1 / 3) + 1e-6);
    expect(Array.from(advantages)).toEqual([a, -a, -a, a]);
  });

  it('grpo matches an independent float64 recomputation on random batches', () => {
    const random = seededRandom(3);
    for (let trial = 0; trial < 100; trial++) {
      const batch = randomBatch(random, trial % 2 ? 'real' : 'binary');
      const { advantages } = sequenceAdvantages(batch, { estimator: 'grpo' });
      const expected = referenceGrpo(
        batch.map((t) => t.reward),
        batch.map((t) => t.groupId),
      );
      for (const [i, e] of expected.entries()) expect(advantages[i]).toBeCloseTo(e, 12);
    }
  });

  it('drgrpo subtracts the group mean; rloo subtracts the mean of the other members', () => {
    const batch = batchOf([3, 1, 2, 10, 4], [7, 7, 7, 8, 8]);
    expect(Array.from(sequenceAdvantages(batch, { estimator: 'drgrpo' }).advantages)).toEqual([
      1, -1, 0, 3, -3,
    ]);
    // r_i - mean(others): 3 - 1.5, 1 - 2.5, 2 - 2, 10 - 4, 4 - 10.
    expect(Array.from(sequenceAdvantages(batch, { estimator: 'rloo' }).advantages)).toEqual([
      1.5, -1.5, 0, 6, -6,
    ]);
  });

  it('gives a group of one advantage 0 by default, and verl behaviour on request', () => {
    const batch = batchOf([0.8, 1, 0], [1, 2, 2]);
    for (const name of ['grpo', 'drgrpo', 'rloo']) {
      expect(sequenceAdvantages(batch, { estimator: name }).advantages[0]).toBe(0);
    }
    const rewards = Float64Array.from([0.8]);
    const groups = groupIndex([1]);
    expect(grpoEstimator({ singleton: 'verl' }).estimate(rewards, groups)[0]).toBe(0.8 / (1 + 1e-6));
    expect(drGrpoEstimator({ singleton: 'verl' }).estimate(rewards, groups)[0]).toBe(0.8);
    expect(rlooEstimator({ singleton: 'verl' }).estimate(rewards, groups)[0]).toBe(0.8);
  });

  it('reports diagnostics per batch', () => {
    const { diagnostics } = sequenceAdvantages(batchOf([1, 1, 0, 1, 5], [1, 1, 2, 2, 3]));
    expect(diagnostics).toMatchObject({
      estimator: 'grpo',
      groups: 3,
      singletonGroups: 1,
      zeroSignalGroups: 2,
    });
    const a = 0.5 / (Math.sqrt(0.5) + 1e-6);
    expect(diagnostics.meanAbsAdvantage).toBeCloseTo((2 * a) / 5, 15);
  });

  it('properties: advantages sum to ~0 per group; grpo is invariant to positive affine maps of the rewards', () => {
    const random = seededRandom(99);
    for (let trial = 0; trial < 200; trial++) {
      const batch = randomBatch(random, 'real');
      const scale = 0.1 + random() * 10;
      const shift = random() * 20 - 10;
      const affine = batch.map((t) => ({ ...t, reward: scale * t.reward + shift }));
      for (const estimator of ['grpo', 'drgrpo', 'rloo']) {
        const { advantages } = sequenceAdvantages(batch, { estimator });
        for (const members of groupsOf(batch.map((t) => t.groupId))) {
          const sum = members.reduce((s, i) => s + advantages[i]!, 0);
          expect(Math.abs(sum)).toBeLessThan(1e-9 * members.length * 10);
        }
      }
      // (a r + b - (a m + b)) / (a s + a eps) = (r - m) / (s + eps): exact invariance once eps scales with a.
      const base = sequenceAdvantages(batch).advantages;
      const moved = sequenceAdvantages(affine, {
        estimator: grpoEstimator({ epsilon: scale * 1e-6 }),
      }).advantages;
      for (const [i, a] of base.entries()) expect(moved[i]).toBeCloseTo(a, 8);
    }
  });

  it('rejects NaN rewards naming the trajectory and field, and bad config by name', () => {
    expect(() => sequenceAdvantages(batchOf([1, Number.NaN], [1, 1]))).toThrow(
      "trajectory 1: field 'reward' must be a finite number, got NaN",
    );
    expect(() => sequenceAdvantages(batchOf([1, 0], [1, 1]), { rewards: [1, Number.NaN] })).toThrow(
      'trajectory 1: rewards[1] must be a finite number, got NaN',
    );
    expect(() => sequenceAdvantages(batchOf([1], [1]), { rewards: [1, 2] })).toThrow(/rewards has 2 entries/);
    expect(() => getAdvantageEstimator('ppo')).toThrow(
      'unknown advantage estimator "ppo"; registered: grpo, drgrpo, rloo',
    );
    expect(() => getAdvantageEstimator('grpo', { epsilon: 0 })).toThrow(
      /^advantage estimator "grpo": option 'epsilon'/,
    );
    expect(() => getAdvantageEstimator('rloo', { eps: 1 })).toThrow(
      /^advantage estimator "rloo": unknown option 'eps'/,
    );
  });

  it('returns empty results for an empty batch', () => {
    const result = sequenceAdvantages([]);
    expect(result.advantages).toHaveLength(0);
    expect(result.diagnostics).toMatchObject({ groups: 0, meanAbsAdvantage: 0 });
  });

  it('registers a user estimator by name', () => {
    registerAdvantageEstimator('max-baseline', () => ({
      name: 'max-baseline',
      estimate(rewards, groups) {
        const out = new Float64Array(rewards.length);
        for (const members of groups) {
          const best = Math.max(...Array.from(members, (i) => rewards[i]!));
          for (const i of members) out[i] = rewards[i]! - best;
        }
        return out;
      },
    }));
    expect(advantageEstimatorNames()).toContain('max-baseline');
    const { advantages } = sequenceAdvantages(batchOf([1, 3], [0, 0]), { estimator: 'max-baseline' });
    expect(Array.from(advantages)).toEqual([-2, 0]);
    expect(() => registerAdvantageEstimator('grpo', () => grpoEstimator())).toThrow(/already registered/);
  });
});
