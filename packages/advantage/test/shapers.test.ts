import { seededRandom } from '@taorl/eval';
import { describe, expect, it } from 'vitest';
import {
  aepoShaper,
  chengShaper,
  type EntropyShaper,
  entropyShaperNames,
  getEntropyShaper,
  registerEntropyShaper,
  sequenceAdvantages,
  type TokenAdvantages,
  taoShaper,
  tokenAdvantages,
} from '../src/index';
import { freeze, randomBatch, snapshot, type TestTrajectory } from './random';
import { referenceTaoBonus } from './reference';

function advantagesOf(
  batch: readonly TestTrajectory[],
  layout: 'packed' | 'separate' = 'packed',
): TokenAdvantages {
  return tokenAdvantages(batch, sequenceAdvantages(batch).advantages, { layout });
}

const rows = (a: TokenAdvantages) => a.perTrajectory.map((row) => Array.from(row));

// Two trajectories of one group (rewards 1, 0): A = +-0.5 / (sqrt(1/2) + 1e-6) on every policy token.
//   positions      0    1    2 | 3  4 | 5    6    7    8
//   lossMask       1    1    1 | 0  0 | 1    1    1    1      observation [3, 5) ok
//   entropy        0.5  3    1 | 9  9 | 2    0.5  4    1
const worked = freeze([
  {
    groupId: 0,
    reward: 1,
    lossMask: Uint8Array.from([1, 1, 1, 0, 0, 1, 1, 1, 1]),
    entropies: Float32Array.from([0.5, 3, 1, 9, 9, 2, 0.5, 4, 1]),
    toolCalls: [{ status: 'ok', startToken: 3, endToken: 5 }],
  },
  {
    groupId: 0,
    reward: 0,
    lossMask: Uint8Array.from([1, 1, 1, 0, 0, 1, 1, 1, 1]),
    entropies: Float32Array.from([0.5, 3, 1, 9, 9, 2, 0.5, 4, 1]),
    toolCalls: [{ status: 'ok', startToken: 3, endToken: 5 }],
  },
]);

describe('tao shaper', () => {
  it('adds psi = min(alpha H / mean_S H, |A| / kappa) on the top q_H of M_post, worked by hand', () => {
    const a = Math.fround(0.5 / (Math.sqrt(0.5) + 1e-6));
    // M_post entropies (both trajectories): 2, 0.5, 4, 1, 2, 0.5, 4, 1. q_H = 0.25: the 0.75 quantile at
    // position 5.25 of [0.5, 0.5, 1, 1, 2, 2, 4, 4] is 2 + 0.25 * (4 - 2) = 2.5, so S = the two 4s, mean 4.
    // psi = min(0.2 * 4 / 4, a / 2) = 0.2.
    const result = taoShaper({ topFraction: 0.25 }).shape(worked, advantagesOf(worked));
    expect(result.diagnostics).toEqual({
      shaper: 'tao',
      candidateTokens: 8,
      selectedTokens: 2,
      entropyThreshold: 2.5,
      entropyScale: 4,
      meanBonus: 0.2,
      maxBonus: 0.2,
    });
    expect(rows(result.advantages)).toEqual([
      [a, a, a, 0, 0, a, a, Math.fround(a + 0.2), a],
      [-a, -a, -a, 0, 0, -a, -a, Math.fround(-a + 0.2), -a],
    ]);
  });

  it('clips psi at |A| / kappa and leaves zero advantages alone', () => {
    const result = taoShaper({ topFraction: 0.25, alpha: 5, kappa: 4 }).shape(worked, advantagesOf(worked));
    const a = Math.fround(0.5 / (Math.sqrt(0.5) + 1e-6));
    expect(result.advantages.perTrajectory[0]![7]).toBe(Math.fround(a + a / 4));
    expect(result.advantages.perTrajectory[1]![7]).toBe(Math.fround(-a + a / 4));
    const zero = taoShaper({ topFraction: 1 }).shape(worked, tokenAdvantages(worked, [0, 0]));
    expect(zero.advantages.packed!.data.every((v) => v === 0)).toBe(true);
    expect(zero.diagnostics.maxBonus).toBe(0);
  });

  it('offers the vocab and none normalisations and the first-k window', () => {
    const vocab = taoShaper({ topFraction: 0.25, normalisation: 'vocab', vocabSize: 151936 });
    const d = vocab.shape(worked, advantagesOf(worked)).diagnostics;
    expect(d.entropyScale).toBe(Math.log(151936));
    expect(d.meanBonus).toBeCloseTo((0.2 * 4) / Math.log(151936), 12);
    // Raw entropy: psi = min(0.05 * 4, 0.707 / 2) = 0.2.
    const raw = taoShaper({ topFraction: 0.25, normalisation: 'none', alpha: 0.05 }).shape(
      worked,
      advantagesOf(worked),
    );
    expect(raw.diagnostics.meanBonus).toBeCloseTo(0.2, 9);
    expect(raw.diagnostics.entropyScale).toBeNull();
    // First two policy tokens after the observation: entropies 2 and 0.5 in each trajectory.
    const firstTwo = taoShaper({ topFraction: 0.5, window: { firstTokens: 2 } }).shape(
      worked,
      advantagesOf(worked),
    );
    expect(firstTwo.diagnostics).toMatchObject({ candidateTokens: 4, selectedTokens: 2, entropyScale: 2 });
    expect(() => taoShaper({ normalisation: 'vocab' })).toThrow(/option 'vocabSize'/);
    expect(() => taoShaper({ kappa: 0.5 })).toThrow(
      /option 'kappa' must be a finite number in \[1, Infinity\]/,
    );
    expect(() => taoShaper({ topFraction: 1.5 })).toThrow(/option 'topFraction'/);
    expect(() => taoShaper({ qH: 0.2 } as never)).toThrow(/tao: unknown option 'qH'/);
  });

  it('matches an independent float64 recomputation and keeps its invariants on random batches', () => {
    const random = seededRandom(2024);
    for (let trial = 0; trial < 200; trial++) {
      const batch = freeze(randomBatch(random, trial % 2 ? 'real' : 'binary'));
      const before = snapshot(batch);
      const options = {
        alpha: random() * 2,
        kappa: 1 + random() * 3,
        topFraction: [0, 0.2, 0.5, 1][trial % 4]!,
        ...(trial % 3 === 0 ? { firstTokens: 1 + Math.floor(random() * 4) } : {}),
      };
      const input = advantagesOf(batch, trial % 2 ? 'packed' : 'separate');
      const inputCopy = rows(input);
      const shaper = taoShaper({
        alpha: options.alpha,
        kappa: options.kappa,
        topFraction: options.topFraction,
        ...(options.firstTokens === undefined ? {} : { window: { firstTokens: options.firstTokens } }),
      });
      const { advantages, diagnostics } = shaper.shape(batch, input);
      const expected = referenceTaoBonus(batch, input.perTrajectory, options);

      expect(diagnostics.candidateTokens).toBe(expected.candidates);
      expect(diagnostics.selectedTokens).toBe(expected.selected);
      expect(diagnostics.entropyThreshold).toBe(expected.threshold);
      expect(advantages.packed === null).toBe(input.packed === null);
      batch.forEach((t, i) => {
        const out = advantages.perTrajectory[i]!;
        const a = input.perTrajectory[i]!;
        for (let p = 0; p < out.length; p++) {
          if (!expected.inS[i]![p]) {
            // Outside S (and wherever lossMask is 0) the advantage is bit-for-bit the input.
            expect(out[p]).toBe(a[p]);
            continue;
          }
          expect(out[p]).toBeCloseTo(expected.shaped[i]![p]!, 6);
          // psi >= 0 never flips a sign and never exceeds |A| / kappa.
          const psi = out[p]! - a[p]!;
          expect(psi).toBeGreaterThanOrEqual(0);
          expect(psi).toBeLessThanOrEqual(Math.abs(a[p]!) / options.kappa + 1e-6);
          expect(Math.sign(out[p]!) === Math.sign(a[p]!) || out[p] === 0).toBe(true);
        }
        if (t.lossMask.length === 0) expect(out).toHaveLength(0);
      });
      expect(rows(input)).toEqual(inputCopy);
      expect(snapshot(batch)).toBe(before);
    }
  });

  it('rejects NaN entropies and misaligned arrays by trajectory and position', () => {
    const bad = [{ ...worked[0]!, entropies: Float32Array.from([0, 0, 0, 0, 0, 0, Number.NaN, 0, 0]) }];
    expect(() => taoShaper().shape(bad, tokenAdvantages(bad, [1]))).toThrow(
      'trajectory 0: entropies[6] must be finite, got NaN',
    );
    const short = [{ ...worked[0]!, entropies: new Float32Array(3) }];
    expect(() => taoShaper().shape(short, tokenAdvantages(short, [1]))).toThrow(
      /trajectory 0: lossMask has 9 tokens/,
    );
    expect(() => taoShaper().shape(worked, tokenAdvantages([worked[0]!], [1]))).toThrow(
      /1 advantage rows for 2/,
    );
  });

  it('writes into its input only when asked to', () => {
    const input = advantagesOf(worked);
    const result = taoShaper({ topFraction: 0.25 }).shape(worked, input, { inPlace: true });
    expect(result.advantages).toBe(input);
    expect(input.perTrajectory[0]![7]).toBe(Math.fround(Math.fround(0.5 / (Math.sqrt(0.5) + 1e-6)) + 0.2));
  });
});

describe('cheng shaper', () => {
  it('applies the same clipped bonus to every policy token on raw entropy', () => {
    const input = advantagesOf(worked);
    const { advantages, diagnostics } = chengShaper().shape(worked, input);
    expect(diagnostics).toMatchObject({ candidateTokens: 14, selectedTokens: 14, entropyThreshold: 0.5 });
    worked.forEach((t, i) => {
      for (let p = 0; p < t.lossMask.length; p++) {
        const a = input.perTrajectory[i]![p]!;
        const expected = t.lossMask[p] ? a + Math.min(0.4 * t.entropies[p]!, Math.abs(a) / 2) : 0;
        expect(advantages.perTrajectory[i]![p]).toBeCloseTo(expected, 6);
      }
    });
  });
});

describe('aepo shaper', () => {
  it('scales M_post advantages by 1 + c z, z standardised over all policy tokens (population std)', () => {
    const random = seededRandom(8);
    for (let trial = 0; trial < 100; trial++) {
      const batch = randomBatch(random);
      const scope = trial % 2 ? 'all' : 'post-tool';
      const input = advantagesOf(batch);
      const { advantages, diagnostics } = aepoShaper({ coefficient: 0.3, scope }).shape(batch, input);
      const valid = batch.flatMap((t) => Array.from(t.entropies).filter((_, p) => t.lossMask[p] !== 0));
      const mean = valid.reduce((a, b) => a + b, 0) / Math.max(valid.length, 1);
      const variance = valid.reduce((a, h) => a + (h - mean) ** 2, 0) / Math.max(valid.length, 1);
      const std = valid.length > 1 ? Math.sqrt(variance) : 1;
      let shapedCount = 0;
      batch.forEach((t, i) => {
        for (let p = 0; p < t.lossMask.length; p++) {
          const a = input.perTrajectory[i]![p]!;
          const inScope = t.lossMask[p] !== 0 && (scope === 'all' || isPostTool(t, p));
          shapedCount += inScope ? 1 : 0;
          const expected = inScope ? a * (1 + (0.3 * (t.entropies[p]! - mean)) / (std + 1e-8)) : a;
          expect(advantages.perTrajectory[i]![p]).toBeCloseTo(expected, 5);
        }
      });
      expect(diagnostics.candidateTokens).toBe(shapedCount);
      expect(diagnostics.entropyScale).toBeCloseTo(std, 9);
    }
  });

  it('validates its options', () => {
    expect(() => aepoShaper({ scope: 'batch' as never })).toThrow(/aepo: option 'scope'/);
    expect(() => aepoShaper({ c: 1 } as never)).toThrow(/aepo: unknown option 'c'/);
  });
});

function isPostTool(t: TestTrajectory, p: number): boolean {
  let latest = -1;
  t.toolCalls.forEach((call, j) => {
    if (call.endToken <= p) latest = j;
  });
  return latest >= 0 && t.toolCalls[latest]!.status === 'ok';
}

describe('shaper registry', () => {
  it('has tao, cheng, aepo and none; none returns an equal copy', () => {
    expect(entropyShaperNames()).toEqual(expect.arrayContaining(['tao', 'cheng', 'aepo', 'none']));
    const input = advantagesOf(worked);
    const { advantages, diagnostics } = getEntropyShaper('none').shape(worked, input);
    expect(advantages).not.toBe(input);
    expect(rows(advantages)).toEqual(rows(input));
    expect(diagnostics.selectedTokens).toBe(0);
    expect(getEntropyShaper('tao', { alpha: 0.3 }).name).toBe('tao');
    expect(() => getEntropyShaper('TAO')).toThrow(
      'unknown entropy shaper "TAO" (did you mean "tao"?); registered: aepo, tao, cheng, none',
    );
    expect(() => getEntropyShaper('none', { alpha: 1 })).toThrow(
      /^entropy shaper "none": unknown option 'alpha'/,
    );
  });

  it('registers a user shaper', () => {
    const flat: EntropyShaper = {
      name: 'flat-bonus',
      shape(_batch, advantages) {
        const perTrajectory = advantages.perTrajectory.map((row) => row.map((a) => (a === 0 ? 0 : a + 0.1)));
        return {
          advantages: { perTrajectory, packed: null },
          diagnostics: {
            shaper: 'flat-bonus',
            candidateTokens: 0,
            selectedTokens: 0,
            entropyThreshold: null,
            entropyScale: null,
            meanBonus: 0.1,
            maxBonus: 0.1,
          },
        };
      },
    };
    registerEntropyShaper('flat-bonus', () => flat);
    expect(getEntropyShaper('flat-bonus').shape(worked, advantagesOf(worked)).diagnostics.meanBonus).toBe(
      0.1,
    );
    expect(() => registerEntropyShaper('tao', () => flat)).toThrow(/already registered/);
  });
});
