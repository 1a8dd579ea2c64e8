import { computeAdvantages, grpoEstimator } from '@taorl/advantage';
import type { Trajectory } from '@taorl/data';
import { voidTurn } from '@taorl/filter';
import { describe, expect, it } from 'vitest';

/** A one-group batch: rewards 1, 0, 0, 1; the second trajectory has a void turn. */
const batch = [1, 0, 0, 1].map((reward, i): Trajectory & { voidTurn: boolean } => ({
  groupId: 'q',
  promptIds: Int32Array.from([1]),
  responseIds: Int32Array.from([2, 3]),
  lossMask: Uint8Array.from([1, 1]),
  oldLogProbs: new Float32Array(2),
  entropies: Float32Array.from([0.5, 0.5]),
  toolCalls: [],
  reward,
  correct: reward === 1,
  truncated: false,
  text: '',
  voidTurn: i === 1,
}));

const advantagesOf = (kept: readonly Trajectory[]) =>
  computeAdvantages(kept, { estimator: grpoEstimator(), shaper: 'none', layout: 'separate' }).sequence;

describe('void turns masked after the group statistics, as SimpleTIR (not dropped before them)', () => {
  it('keeps the void trajectory in the mean and std and trains nothing on it', () => {
    const masked = voidTurn({ mode: 'mask' }).apply(batch);
    const dropped = voidTurn({ mode: 'drop' }).apply(batch);
    // Mask: the group is still {1, 0, 0, 1}, mean 0.5, std 0.577: the others' advantages are as without the filter.
    const std = Math.sqrt(1 / 3);
    expect(Array.from(advantagesOf(masked.kept))).toEqual(
      [0.5, -0.5, -0.5, 0.5].map((d) => expect.closeTo(d / (std + 1e-6), 5)),
    );
    expect(Array.from(masked.kept[1]!.lossMask)).toEqual([0, 0]);
    // Drop (the plausible mistake): the group becomes {1, 0, 1}, mean 2/3, and every other advantage moves.
    const droppedAdvantages = Array.from(advantagesOf(dropped.kept));
    expect(droppedAdvantages).toHaveLength(3);
    expect(Math.abs(droppedAdvantages[0]! - 0.5 / (std + 1e-6))).toBeGreaterThan(0.2);
  });
});
