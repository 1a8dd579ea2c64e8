import { seededRandom } from '@taorl/eval';
import { toolAwareFilter } from '@taorl/filter';
import { describe, expect, it } from 'vitest';
import {
  computeAdvantages,
  getEntropyShaper,
  overlongShaper,
  rlooEstimator,
  sequenceAdvantages,
  shapeRewards,
  taoShaper,
  tokenAdvantages,
} from '../src/index';
import { freeze, randomBatch, snapshot } from './random';
import { referenceGrpo, referenceTaoBonus } from './reference';

describe('computeAdvantages', () => {
  it('equals estimator -> broadcast -> tao shaper step by step, without touching its input', () => {
    const random = seededRandom(31);
    for (let trial = 0; trial < 50; trial++) {
      const batch = freeze(randomBatch(random));
      const before = snapshot(batch);
      const result = computeAdvantages(batch);
      const sequence = referenceGrpo(
        batch.map((t) => t.reward),
        batch.map((t) => t.groupId),
      );
      sequence.forEach((a, i) => {
        expect(result.sequence[i]).toBeCloseTo(a, 12);
      });
      const broadcast = tokenAdvantages(batch, result.sequence);
      const expected = referenceTaoBonus(batch, broadcast.perTrajectory, {
        alpha: 0.2,
        kappa: 2,
        topFraction: 0.2,
      });
      result.tokens.perTrajectory.forEach((row, i) => {
        row.forEach((v, p) => {
          expect(v).toBeCloseTo(expected.shaped[i]![p]!, 6);
          // Masks are respected: tokens the policy did not generate carry no advantage.
          if (batch[i]!.lossMask[p] === 0) expect(v).toBe(0);
        });
      });
      expect(result.diagnostics.shaping.selectedTokens).toBe(expected.selected);
      expect(result.diagnostics.sequence.estimator).toBe('grpo');
      expect(snapshot(batch)).toBe(before);
    }
  });

  it('swaps the estimator and turns the bonus off by name or instance', () => {
    const random = seededRandom(4);
    const batch = randomBatch(random).filter((t) => t.lossMask.length > 0);
    const rloo = computeAdvantages(batch, { estimator: 'rloo', shaper: 'none', layout: 'separate' });
    expect(Array.from(rloo.sequence)).toEqual(
      Array.from(sequenceAdvantages(batch, { estimator: 'rloo' }).advantages),
    );
    expect(rloo.tokens.packed).toBeNull();
    expect(rloo.tokens.perTrajectory.map((r) => Array.from(r))).toEqual(
      tokenAdvantages(batch, rloo.sequence).perTrajectory.map((r) => Array.from(r)),
    );
    const same = computeAdvantages(batch, { estimator: rlooEstimator(), shaper: getEntropyShaper('none') });
    expect(Array.from(same.tokens.packed!.data)).toEqual(
      rloo.tokens.perTrajectory.flatMap((r) => Array.from(r)),
    );
    expect(same.diagnostics.shaping.shaper).toBe('none');
  });

  it('runs the whole stage on filtered, overlong-shaped trajectories', () => {
    const random = seededRandom(12);
    const batch = randomBatch(random).map((t, i) => ({ ...t, correct: t.reward > 0, id: i }));
    const shaped = shapeRewards(batch, [overlongShaper({ maxLength: 40, buffer: 10 })]);
    const rewarded = batch.map((t, i) => ({ ...t, reward: shaped.rewards[i]! }));
    const { kept, stats } = toolAwareFilter().apply(rewarded);
    const result = computeAdvantages(kept, { shaper: taoShaper({ topFraction: 0.5 }) });
    expect(result.tokens.perTrajectory).toHaveLength(stats.kept);
    expect(result.diagnostics.sequence.groups).toBe(stats.keptGroups);
    expect(kept.every((t) => t.toolCalls.length === 0 || t.toolCalls.some((c) => c.status === 'ok'))).toBe(
      true,
    );
    kept.forEach((t, i) => {
      expect(result.tokens.perTrajectory[i]).toHaveLength(t.lossMask.length);
    });
  });

  it('every shaper respects the loss mask and leaves its input alone', () => {
    const random = seededRandom(77);
    for (let trial = 0; trial < 60; trial++) {
      const batch = freeze(randomBatch(random, 'real'));
      const before = snapshot(batch);
      for (const shaper of ['tao', 'cheng', 'aepo', 'none']) {
        const broadcast = tokenAdvantages(batch, sequenceAdvantages(batch).advantages);
        const copy = Array.from(broadcast.packed!.data);
        const { advantages } = getEntropyShaper(shaper).shape(batch, broadcast);
        expect(Array.from(broadcast.packed!.data)).toEqual(copy);
        batch.forEach((t, i) => {
          t.lossMask.forEach((m, p) => {
            if (m === 0) expect(advantages.perTrajectory[i]![p]).toBe(0);
          });
        });
      }
      expect(snapshot(batch)).toBe(before);
    }
  });

  it('gives all-zero advantages and no bonus when every group is degenerate', () => {
    const random = seededRandom(6);
    const batch = randomBatch(random).map((t) => ({ ...t, reward: t.groupId % 2 }));
    for (const estimator of ['grpo', 'drgrpo', 'rloo']) {
      for (const shaper of ['tao', 'cheng', 'aepo']) {
        const result = computeAdvantages(batch, { estimator, shaper });
        expect(result.tokens.packed!.data.every((v) => v === 0)).toBe(true);
        expect(result.diagnostics.shaping.maxBonus).toBe(0);
        expect(result.diagnostics.sequence.zeroSignalGroups).toBe(result.diagnostics.sequence.groups);
      }
    }
  });

  it('handles an empty batch', () => {
    const result = computeAdvantages([]);
    expect(result.sequence).toHaveLength(0);
    expect(result.tokens.packed!.data).toHaveLength(0);
    expect(result.diagnostics.shaping).toMatchObject({
      candidateTokens: 0,
      selectedTokens: 0,
      entropyThreshold: null,
    });
  });
});
