import { Rng } from '@taorl/data';
import { describe, expect, it } from 'vitest';
import { entropyFromTopLogprobs } from '../../src/index.js';

/** Uniform draws in [0, 1) from a seeded generator. */
const prng = (seed: number) => {
  const rng = new Rng(seed);
  return () => rng.next();
};

// entropyFromTopLogprobs against the exact float64 entropy of random distributions.

/** A random distribution over `size` ids as float64 log-probs, peaked by `sharpness`, most likely first. */
function randomLogProbs(size: number, sharpness: number, random: () => number): number[] {
  const logits = Array.from({ length: size }, () => sharpness * -Math.log(random()));
  const max = Math.max(...logits);
  const logSum = max + Math.log(logits.reduce((sum, logit) => sum + Math.exp(logit - max), 0));
  return logits.map((logit) => logit - logSum).sort((a, b) => b - a);
}

const entropy = (logProbs: readonly number[]) => logProbs.reduce((sum, lp) => sum - Math.exp(lp) * lp, 0);

describe('entropyFromTopLogprobs', () => {
  const random = prng(17);
  const cases = [
    { vocab: 50, sharpness: 0.5 },
    { vocab: 50, sharpness: 3 },
    { vocab: 500, sharpness: 1 },
    { vocab: 2, sharpness: 1 },
  ].map((shape) => ({ ...shape, logProbs: randomLogProbs(shape.vocab, shape.sharpness, random) }));

  it.each(cases)(
    'bounds the exact entropy from above and tightens to it as k -> V (V=$vocab)',
    ({ vocab, logProbs }) => {
      const exact = entropy(logProbs);
      let previous = Infinity;
      for (let k = 1; k <= vocab; k++) {
        const top = logProbs.slice(0, k);
        const estimate = entropyFromTopLogprobs(top, vocab);
        expect(estimate).toBeGreaterThanOrEqual(entropy(top) - 1e-12);
        expect(estimate).toBeGreaterThanOrEqual(exact - 1e-12);
        expect(estimate).toBeLessThanOrEqual(previous + 1e-12);
        previous = estimate;
      }
      expect(entropyFromTopLogprobs(logProbs, vocab)).toBeCloseTo(exact, 12);
      // Far from exact with few alternatives over a flat tail: the bound is a bound, not an identity.
      if (vocab >= 50) expect(entropyFromTopLogprobs(logProbs.slice(0, 1), vocab)).toBeGreaterThan(exact);
    },
  );

  it('is exact when the tail really is uniform', () => {
    const logProbs = [Math.log(0.5), Math.log(0.2), ...Array.from({ length: 30 }, () => Math.log(0.3 / 30))];
    expect(entropyFromTopLogprobs(logProbs.slice(0, 2), 32)).toBeCloseTo(entropy(logProbs), 12);
  });

  it('adds no tail when rounding makes the known mass reach 1', () => {
    const top = [Math.log(0.7), Math.log(0.3000001)];
    expect(entropyFromTopLogprobs(top, 1000)).toBeCloseTo(entropy(top), 12);
  });

  it('without alternatives returns the surprisal, whose mean over sampled tokens is the entropy', () => {
    const logProbs = randomLogProbs(64, 1, random);
    const exact = entropy(logProbs);
    const draw = prng(5);
    const samples = 40_000;
    let sum = 0;
    let sumSquares = 0;
    for (let n = 0; n < samples; n++) {
      let u = draw() - Math.exp(logProbs[0]!);
      let id = 0;
      while (u > 0 && id < logProbs.length - 1) {
        id++;
        u -= Math.exp(logProbs[id]!);
      }
      const surprisal = entropyFromTopLogprobs([], logProbs.length, logProbs[id]!);
      expect(surprisal).toBe(-logProbs[id]!);
      sum += surprisal;
      sumSquares += surprisal * surprisal;
    }
    const mean = sum / samples;
    const standardError = Math.sqrt((sumSquares / samples - mean * mean) / samples);
    expect(Math.abs(mean - exact)).toBeLessThan(4 * standardError);
  });

  it('needs the sampled log-prob when there are no alternatives', () => {
    expect(() => entropyFromTopLogprobs([], 10)).toThrow(/sampledLogProb/);
  });
});
