import { describe, expect, it } from 'vitest';
import { passAtK } from '../src/index';

/** Independent recomputation: 1 - C(n-c, k) / C(n, k) with exact BigInt binomials. */
function binomial(n: number, k: number): bigint {
  if (k < 0 || k > n) return 0n;
  let result = 1n;
  for (let i = 1; i <= k; i++) result = (result * BigInt(n - k + i)) / BigInt(i);
  return result;
}

function passAtKExact(n: number, c: number, k: number): number {
  const scale = 10n ** 30n;
  return 1 - Number((binomial(n - c, k) * scale) / binomial(n, k)) / 1e30;
}

describe('passAtK', () => {
  it('matches exact binomial ratios over a grid of (n, c, k)', () => {
    for (const n of [1, 2, 5, 16, 64]) {
      for (let c = 0; c <= n; c += Math.max(1, Math.floor(n / 7))) {
        for (const k of [1, 2, 4, 8, 16, 64].filter((value) => value <= n)) {
          expect(passAtK(n, c, k)).toBeCloseTo(passAtKExact(n, c, k), 12);
        }
      }
    }
  });

  it('reduces to c / n at k = 1 and to 1 once fewer than k samples are wrong', () => {
    expect(passAtK(10, 3, 1)).toBeCloseTo(0.3, 15);
    expect(passAtK(10, 8, 3)).toBe(1);
    expect(passAtK(10, 0, 10)).toBe(0);
  });

  it('rejects impossible arguments with the name of the field', () => {
    expect(() => passAtK(4, 5, 1)).toThrow(/c \(5\) exceeds n \(4\)/);
    expect(() => passAtK(4, 1, 0)).toThrow(/k must be in 1\.\.n/);
    expect(() => passAtK(4.5, 1, 1)).toThrow(/n must be a non-negative integer/);
  });
});
