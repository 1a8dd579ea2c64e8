import { describe, expect, it } from 'vitest';
import { aggregationWeights, LOSS_AGGREGATIONS, type LossAggregation } from '../src/index';

// Two padded rows of 4 columns: a sequence with 4 loss tokens and one with a single loss token.
const layout = { rows: 2, columns: 4, lossMask: [1, 1, 1, 1, 0, 1, 0, 0] };
// Loss 1 on every token of the long sequence, 0 on the short one.
const perToken = [1, 1, 1, 1, 0, 0, 0, 0];
const aggregate = (weights: Float32Array) =>
  perToken.reduce((sum, value, index) => sum + value * weights[index]!, 0);

describe('aggregationWeights', () => {
  it('weights tokens as each mode documents', () => {
    const loss = (mode: LossAggregation, horizon?: number) =>
      aggregate(aggregationWeights(layout, mode, { horizon }));
    // token-mean: every loss token counts once, so the long sequence dominates: 4 of 5 tokens.
    expect(loss('token-mean')).toBeCloseTo(4 / 5, 6);
    // seq-mean-token-sum: sums per sequence, averaged over 2 sequences: longer sequences weigh more.
    expect(loss('seq-mean-token-sum')).toBeCloseTo(4 / 2, 6);
    // seq-mean-token-mean: each sequence weighs 1/2 whatever its length.
    expect(loss('seq-mean-token-mean')).toBeCloseTo(1 / 2, 6);
    // seq-mean-token-sum-norm: token sums over a constant horizon, not over the number of sequences.
    expect(loss('seq-mean-token-sum-norm')).toBeCloseTo(4 / 4, 6);
    expect(loss('seq-mean-token-sum-norm', 16)).toBeCloseTo(4 / 16, 6);
  });

  it('gives zero weight to masked tokens in every mode', () => {
    for (const mode of LOSS_AGGREGATIONS) {
      const weights = aggregationWeights(layout, mode);
      layout.lossMask.forEach((m, index) => {
        if (m === 0) expect(weights[index]).toBe(0);
        else expect(weights[index]).toBeGreaterThan(0);
      });
    }
  });

  it('weights packed sequences exactly like the same sequences padded one per row', () => {
    // Both sequences packed into one row of 8 with one padding token; sequence ids mark who is who.
    const packed = {
      rows: 1,
      columns: 8,
      lossMask: [1, 1, 1, 1, 0, 1, 0, 0],
      sequenceIds: [0, 0, 0, 0, 1, 1, -1, -1],
    };
    for (const mode of ['token-mean', 'seq-mean-token-sum', 'seq-mean-token-mean'] as const) {
      expect(Array.from(aggregationWeights(packed, mode))).toEqual(
        Array.from(aggregationWeights(layout, mode)),
      );
    }
  });

  it('returns all-zero weights for a batch without loss tokens', () => {
    expect(
      Array.from(aggregationWeights({ rows: 1, columns: 3, lossMask: [0, 0, 0] }, 'token-mean')),
    ).toEqual([0, 0, 0]);
  });

  it('rejects malformed layouts by field', () => {
    expect(() => aggregationWeights({ ...layout, lossMask: [1, 1] }, 'token-mean')).toThrow(
      'lossMask has 2 entries, expected rows x columns = 8',
    );
    expect(() => aggregationWeights({ ...layout, lossMask: [2, 1, 1, 1, 0, 1, 0, 0] }, 'token-mean')).toThrow(
      'lossMask[0] is 2; a loss mask holds 0 or 1',
    );
    expect(() => aggregationWeights({ ...layout, sequenceIds: [0] }, 'token-mean')).toThrow(
      'sequenceIds has 1 entries',
    );
    expect(() => aggregationWeights(layout, 'sum' as LossAggregation)).toThrow('unknown aggregation "sum"');
    expect(() => aggregationWeights(layout, 'seq-mean-token-sum-norm', { horizon: 0 })).toThrow(
      'options.horizon',
    );
  });
});
