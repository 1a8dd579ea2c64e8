import { seededRandom } from '@taorl/eval';
import { describe, expect, it } from 'vitest';
import { selectTop } from '../src/quantile';
import { referenceQuantile } from './reference';

function referenceTop(values: Float32Array, fraction: number) {
  const list = Array.from(values);
  const threshold = referenceQuantile(list, 1 - fraction);
  const selected = list.filter((v) => v >= threshold);
  return { threshold, count: selected.length, sum: selected.reduce((a, b) => a + b, 0) };
}

describe('selectTop (radix selection)', () => {
  it('matches a sort-based linear quantile, ties, negatives and zeros included', () => {
    const random = seededRandom(5);
    for (let trial = 0; trial < 400; trial++) {
      const n = 1 + Math.floor(random() * 300);
      const grid = trial % 3 === 0;
      const values = Float32Array.from({ length: n }, () =>
        grid ? Math.round(random() * 6) / 4 - 0.5 : (random() - 0.2) * 10 ** (random() * 6 - 3),
      );
      const fraction = trial % 5 === 0 ? 1 : random();
      const selection = selectTop(values, fraction)!;
      const expected = referenceTop(values, fraction);
      expect(selection.threshold).toBe(expected.threshold);
      expect(selection.count).toBe(expected.count);
      expect(selection.sum).toBeCloseTo(expected.sum, 9);
    }
  });

  it('treats -0 as 0, and spans values whose high bits differ', () => {
    const values = Float32Array.from([-0, 0, 1e-30, 1e30, -1e30]);
    expect(selectTop(values, 0.5)).toEqual(referenceTop(values, 0.5));
    expect(selectTop(values, 1)!.count).toBe(5);
    // Adjacent order statistics in different high buckets (1 and 1e30).
    const apart = Float32Array.from([1, 1e30]);
    expect(selectTop(apart, 0.25)).toEqual(referenceTop(apart, 0.25));
  });

  it('selects nothing for fraction 0 or no values, and only reads its input', () => {
    expect(selectTop(new Float32Array(0), 0.5)).toBeNull();
    expect(selectTop(Float32Array.of(1, 2), 0)).toBeNull();
    const values = Float32Array.of(3, 1, 2);
    selectTop(values.subarray(1), 0.5);
    expect(Array.from(values)).toEqual([3, 1, 2]);
  });
});
