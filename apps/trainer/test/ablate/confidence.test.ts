import { describe, expect, it } from 'vitest';
import {
  centredWithin,
  correlationWithInterval,
  meanWithInterval,
  sampleVariance,
  tQuantile975,
} from '../../src/experiments/ablate/confidence.js';
import { seededRandom } from '../../src/util/seeds.js';

/** Student's t density, for an independent check of the quantile table by numerical integration. */
function tDensity(x: number, nu: number): number {
  const logGamma = (z: number): number => {
    // Lanczos approximation (g = 7), accurate to ~1e-13 for z > 0.5.
    const c = [
      0.9999999999998099, 676.5203681218851, -1259.1392167224028, 771.3234287776531, -176.6150291621406,
      12.507343278686905, -0.13857109526572012, 9.984369578019572e-6, 1.5056327351493116e-7,
    ];
    let sum = c[0]!;
    for (let i = 1; i < 9; i++) sum += c[i]! / (z - 1 + i);
    const t = z - 1 + 7.5;
    return 0.5 * Math.log(2 * Math.PI) + (z - 0.5) * Math.log(t) - t + Math.log(sum);
  };
  const logNorm = logGamma((nu + 1) / 2) - logGamma(nu / 2) - 0.5 * Math.log(nu * Math.PI);
  return Math.exp(logNorm - ((nu + 1) / 2) * Math.log(1 + (x * x) / nu));
}

/** P(T <= q) by Simpson's rule on [0, q] plus one half. */
function tCdf(q: number, nu: number): number {
  const n = 20000;
  const h = q / n;
  let sum = tDensity(0, nu) + tDensity(q, nu);
  for (let i = 1; i < n; i++) sum += (i % 2 === 1 ? 4 : 2) * tDensity(i * h, nu);
  return 0.5 + (sum * h) / 3;
}

/** Box-Muller normals from the trainer's seeded generator. */
function normals(seed: number) {
  const uniform = seededRandom(seed);
  return () => Math.sqrt(-2 * Math.log(1 - uniform())) * Math.cos(2 * Math.PI * uniform());
}

describe('95% confidence intervals over seeds', () => {
  it('uses t quantiles whose CDF is 0.975 (checked by integrating the density)', () => {
    for (const nu of [1, 2, 3, 5, 10, 30]) expect(tCdf(tQuantile975(nu), nu)).toBeCloseTo(0.975, 3);
    expect(tQuantile975(200)).toBe(1.96);
    expect(() => tQuantile975(0)).toThrow(/positive integer/);
  });

  it('covers the true mean about 95% of the time with 3 seeds', () => {
    const next = normals(7);
    let covered = 0;
    const trials = 4000;
    for (let i = 0; i < trials; i++) {
      const { mean, halfWidth } = meanWithInterval([next(), next(), next()].map((z) => 0.4 + 0.1 * z));
      if (Math.abs(mean - 0.4) <= halfWidth) covered++;
    }
    // Binomial standard error at 95% over 4000 trials is 0.34 points.
    expect(covered / trials).toBeGreaterThan(0.935);
    expect(covered / trials).toBeLessThan(0.965);
  });

  it('reports the mean, the n - 1 standard deviation, and no interval for one value', () => {
    const result = meanWithInterval([0.2, 0.4, 0.9]);
    expect(result.mean).toBeCloseTo(0.5, 12);
    expect(result.sd).toBeCloseTo(Math.sqrt((0.09 + 0.01 + 0.16) / 2), 12);
    expect(result.halfWidth).toBeCloseTo((4.303 * result.sd) / Math.sqrt(3), 12);
    expect(Number.isNaN(meanWithInterval([3]).halfWidth)).toBe(true);
    expect(sampleVariance([1, 2, 3, 4])).toBeCloseTo(5 / 3, 12);
    expect(() => meanWithInterval([])).toThrow(/no values/);
  });
});

describe('correlationWithInterval', () => {
  it("gives Pearson's r and Fisher's 95% interval", () => {
    // numpy: corrcoef([1, 2, 3, 4, 5], [2, 4, 5, 4, 5]) = sqrt(0.6); tanh(atanh(r) -+ 1.96 / sqrt(5 - 3)).
    const c = correlationWithInterval([1, 2, 3, 4, 5], [2, 4, 5, 4, 5]);
    expect(c.r).toBeCloseTo(Math.sqrt(0.6), 12);
    expect(c.low).toBeCloseTo(-0.3401045563883008, 12);
    expect(c.high).toBeCloseTo(0.9842365517309588, 12);
    expect(c.n).toBe(5);
  });

  it('gives no interval without enough values and no r without variation', () => {
    const few = correlationWithInterval([1, 2, 3, 4, 5], [2, 4, 5, 4, 5], 2);
    expect(few.r).toBeCloseTo(Math.sqrt(0.6), 12);
    expect(few.low).toBeNaN();
    expect(correlationWithInterval([1, 1, 1, 1], [1, 2, 3, 4]).r).toBeNaN();
    expect(() => correlationWithInterval([1, 2], [1, 2, 3])).toThrow(/2 values against 3/);
  });

  it('within groups, ignores what each group adds to both sides', () => {
    const xs = [0.1, 0.5, 0.2, 0.9, 0.4, 0.3];
    const ys = [1.0, 0.7, 0.4, 0.8, 0.2, 0.6];
    const groups = [1, 1, 2, 2, 3, 3];
    const shifted = (values: number[], by: number[]) => values.map((v, i) => v + by[groups[i]! - 1]!);
    const within = (a: number[], b: number[]) =>
      correlationWithInterval(centredWithin(a, groups), centredWithin(b, groups), 2).r;
    const [sx, sy] = [shifted(xs, [5, -3, 0.5]), shifted(ys, [-2, 4, 1])];
    expect(within(sx, sy)).toBeCloseTo(within(xs, ys), 12);
    expect(correlationWithInterval(sx, sy).r).not.toBeCloseTo(correlationWithInterval(xs, ys).r, 2);
    expect(centredWithin([1, 3, 10, 20], [7, 7, 8, 8])).toEqual([-1, 1, -5, 5]);
  });
});
