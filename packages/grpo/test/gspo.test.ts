import { seededRandom } from '@taorl/eval';
import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import { aggregationWeights, type PolicyLossConfig, policyLoss, resolvePolicyLossConfig } from '../src/index';
import { TEST_BACKENDS, useBackend } from './support/backends';
import { expectAllClose } from './support/close';
import { uniform } from './support/random';
import { finiteDifferences } from './support/reference64';

const [B, T] = [3, 6];
const random = seededRandom(34);
const oldLogProbs = uniform(random, B * T, -3, -0.2);
// Token log-ratios in [-0.3, 0.3]: sequence ratios near 1, some inside a +-0.05 clip range, some outside.
const logProbs = oldLogProbs.map((value) => value + (random() * 0.6 - 0.3));
// Responses of 5, 3 and 2 loss tokens: sequence-mean and token-mean aggregation disagree.
const lossMask = [0, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 1, 1];
// One advantage per response, as GRPO broadcasts it.
const rowAdvantage = [1.3, -0.7, 0.9];
const advantages = lossMask.map((m, index) => m * rowAdvantage[Math.floor(index / T)]!);
const tensor = (values: readonly number[]) => tf.tensor2d(values as number[], [B, T]);

interface Clip64 {
  clipLow: number;
  clipHigh: number;
}

/** Each response's GSPO term, from the paper's definition: s_i = (pi / pi_old)^(1/|y_i|), clipped surrogate. */
function sequenceTerms64(lp: readonly number[], clip: Clip64): { term: number; length: number }[] {
  return rowAdvantage.map((advantage, row) => {
    let [sum, length] = [0, 0];
    for (let column = 0; column < T; column++) {
      const index = row * T + column;
      if (lossMask[index] === 1) {
        sum += lp[index]! - oldLogProbs[index]!;
        length++;
      }
    }
    const s = Math.exp(Math.min(10, sum / length));
    const clipped = Math.min(1 + clip.clipHigh, Math.max(1 - clip.clipLow, s));
    return { term: Math.max(-advantage * s, -advantage * clipped), length };
  });
}

/** GSPO's objective: the mean over responses of their terms (sequence-mean). */
const gspo64 = (lp: readonly number[], clip: Clip64) =>
  sequenceTerms64(lp, clip).reduce((sum, { term }) => sum + term, 0) / B;

/** The plausible mistake: the same per-token value averaged over tokens, so long responses weigh more. */
function tokenMeanGspo64(lp: readonly number[], clip: Clip64): number {
  const terms = sequenceTerms64(lp, clip);
  const tokens = terms.reduce((sum, { length }) => sum + length, 0);
  return terms.reduce((sum, { term, length }) => sum + term * length, 0) / tokens;
}

describe('gspo policy loss: defaults', () => {
  it("takes verl's narrow clip range and sequence-mean aggregation by default", () => {
    const resolved = resolvePolicyLossConfig({ name: 'gspo' });
    expect([resolved.clipLow, resolved.clipHigh, resolved.aggregation]).toEqual([
      3e-4,
      4e-4,
      'seq-mean-token-mean',
    ]);
    expect(resolvePolicyLossConfig({ name: 'gspo', clipHigh: 0.01 }).clipHigh).toBe(0.01);
  });

  it('refuses another aggregation, naming the field', () => {
    expect(() => resolvePolicyLossConfig({ name: 'gspo', aggregation: 'token-mean' })).toThrow(
      /config\.aggregation is 'token-mean', but policy loss 'gspo' is defined with 'seq-mean-token-mean'/,
    );
    expect(() => resolvePolicyLossConfig({ name: 'gspo', options: { clip: 1 } })).toThrow(
      /policy loss "gspo".*clip/,
    );
  });
});

describe.each(TEST_BACKENDS)('gspo policy loss on %s', (backend) => {
  useBackend(backend);

  const run = (lp: readonly number[], config: PolicyLossConfig) =>
    policyLoss(
      {
        logProbs: tensor(lp),
        oldLogProbs: tensor(oldLogProbs),
        advantages: tensor(advantages),
        lossMask: tensor(lossMask),
      },
      { name: 'gspo', ...config },
    );

  const gradientOf = (clip: PolicyLossConfig) =>
    tf
      .grad(
        (lp: tf.Tensor) =>
          policyLoss(
            {
              logProbs: lp as tf.Tensor2D,
              oldLogProbs: tensor(oldLogProbs),
              advantages: tensor(advantages),
              lossMask: tensor(lossMask),
            },
            { name: 'gspo', ...clip },
          ).loss,
      )(tensor(logProbs))
      .data();

  it.each([{ clipLow: 0.05, clipHigh: 0.05 }, { clipLow: 0.2, clipHigh: 0.28 }, {}])(
    'matches the float64 sequence-level objective in value and gradient for %o',
    async (clip) => {
      const settings = { clipLow: 3e-4, clipHigh: 4e-4, ...clip };
      const { loss } = run(logProbs, clip);
      expectAllClose(await loss.data(), [gspo64(logProbs, settings)]);
      const gradient = await gradientOf(clip);
      const expected = finiteDifferences((lp) => gspo64(lp, settings), logProbs);
      expectAllClose(gradient, expected, { atol: 1e-4, rtol: 1e-3 });
    },
  );

  it('differs from the token-mean mistake in value and gradient', async () => {
    const clip = { clipLow: 0.05, clipHigh: 0.05 };
    const { loss } = run(logProbs, clip);
    const [value] = await loss.data();
    const mistake = tokenMeanGspo64(logProbs, clip);
    expect(Math.abs(value! - mistake)).toBeGreaterThan(1e-2);
    const gradient = await gradientOf(clip);
    const mistaken = finiteDifferences((lp) => tokenMeanGspo64(lp, clip), logProbs);
    const largest = Math.max(...Array.from(gradient, (g, i) => Math.abs(g - mistaken[i]!)));
    expect(largest).toBeGreaterThan(1e-2);
  });

  it('clips whole sequences: every token of a response shares its ratio', async () => {
    const { metrics } = run(logProbs, {});
    const terms = sequenceTerms64(logProbs, { clipLow: 3e-4, clipHigh: 4e-4 });
    const ratios = rowAdvantage.map((_, row) => {
      let [sum, n] = [0, 0];
      for (let c = 0; c < T; c++) {
        if (lossMask[row * T + c] === 1) {
          sum += logProbs[row * T + c]! - oldLogProbs[row * T + c]!;
          n++;
        }
      }
      return { s: Math.exp(sum / n), n };
    });
    const tokens = ratios.reduce((sum, { n }) => sum + n, 0);
    const binds = (row: number, sign: number) => {
      const { s } = ratios[row]!;
      const a = rowAdvantage[row]!;
      return Math.sign(a) === sign && (sign > 0 ? s > 1 + 4e-4 : s < 1 - 3e-4);
    };
    const fraction = (sign: number) =>
      ratios.reduce((sum, { n }, row) => sum + (binds(row, sign) ? n : 0), 0) / tokens;
    expect(terms).toHaveLength(3);
    expectAllClose(await metrics.clipFractionHigh!.data(), [fraction(1)]);
    expectAllClose(await metrics.clipFractionLow!.data(), [fraction(-1)]);
    expectAllClose(await metrics.sequenceRatio!.data(), [
      ratios.reduce((sum, { s, n }) => sum + s * n, 0) / tokens,
    ]);
  });

  it('gives packed rows the value of the same sequences padded', async () => {
    // Rows 0 and 2 of the padded batch packed into one row of 12: [row 0 | row 2], sequences 0 and 1.
    const pick = (values: readonly number[], rows: number[]) =>
      rows.flatMap((r) => values.slice(r * T, r * T + T));
    const packed = (values: readonly number[]) => tf.tensor2d(pick(values, [0, 2]), [1, 2 * T]);
    const sequenceIds = [...new Array<number>(T).fill(0), ...new Array<number>(T).fill(1)];
    const mask = pick(lossMask, [0, 2]);
    const weights = aggregationWeights(
      { rows: 1, columns: 2 * T, lossMask: mask, sequenceIds },
      'seq-mean-token-mean',
    );
    const clip = { clipLow: 0.05, clipHigh: 0.05 };
    const { loss } = policyLoss(
      {
        logProbs: packed(logProbs),
        oldLogProbs: packed(oldLogProbs),
        advantages: packed(advantages),
        lossMask: packed(lossMask),
        tokenWeights: tf.tensor2d(weights, [1, 2 * T]),
        sequenceIds,
      },
      { name: 'gspo', ...clip },
    );
    const terms = sequenceTerms64(logProbs, clip);
    expectAllClose(await loss.data(), [(terms[0]!.term + terms[2]!.term) / 2]);
  });
});
