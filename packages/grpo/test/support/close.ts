import { expect } from 'vitest';

/**
 * Asserts |actual - expected| <= atol + rtol |expected| elementwise, naming the first index that is off (float32
 * kernels against float64 recomputations).
 */
export function expectAllClose(
  actual: ArrayLike<number>,
  expected: ArrayLike<number>,
  { atol = 1e-5, rtol = 1e-4 }: { atol?: number; rtol?: number } = {},
): void {
  expect(actual.length).toBe(expected.length);
  for (let index = 0; index < expected.length; index++) {
    const [a, e] = [actual[index]!, expected[index]!];
    if (!(Math.abs(a - e) <= atol + rtol * Math.abs(e))) {
      expect.fail(`index ${index}: got ${a}, expected ${e} (atol ${atol}, rtol ${rtol})`);
    }
  }
}
