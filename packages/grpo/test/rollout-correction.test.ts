import { seededRandom } from '@taorl/eval';
import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import {
  GrpoUpdater,
  policyLoss,
  type RolloutCorrectionOptions,
  resolveRolloutCorrection,
  rolloutCorrection,
  type UpdateBatch,
} from '../src/index';
import { TEST_BACKENDS, useBackend } from './support/backends';
import { expectAllClose } from './support/close';
import { uniform } from './support/random';
import { tinyModel, tokenStats64 } from './support/tiny-model';

const [B, T] = [4, 5];
const random = seededRandom(341);
const lossMask = [0, 1, 1, 1, 1, 0, 1, 1, 0, 0, 0, 1, 1, 1, 1, 0, 0, 1, 1, 1];
const oldLogProbs = lossMask.map((m) => m * (-0.2 - 2 * random()));
// The engine's log-probs: the trainer's plus a mismatch of up to +-0.8 nats, so ratios range from 0.45 to 2.2.
const rolloutLogProbs = oldLogProbs.map((value, i) => value + lossMask[i]! * (random() * 1.6 - 0.8));

/** Written from Yao et al. 2025 and verl's rollout_corr_helper, in float64, one sequence per row. */
function reference64(options: Required<RolloutCorrectionOptions>) {
  const rows = Array.from({ length: B }, (_, row) =>
    Array.from({ length: T }, (_, column) => row * T + column).filter((i) => lossMask[i] === 1),
  );
  const clampExp = (x: number) => Math.exp(Math.min(20, Math.max(-20, x)));
  const logRatio = (i: number) => oldLogProbs[i]! - rolloutLogProbs[i]!;
  const weights = new Array<number>(B * T).fill(0);
  const mask = new Array<number>(B * T).fill(0);
  let rejectedRows = 0;
  rows.forEach((members) => {
    const sum = members.reduce((s, i) => s + logRatio(i), 0);
    let rowRejected = false;
    for (const i of members) {
      const ratio = options.weights === 'sequence' ? clampExp(sum) : clampExp(logRatio(i));
      weights[i] = options.weights === 'none' ? 1 : Math.min(ratio, options.threshold);
      const banded =
        options.rejection === 'token'
          ? clampExp(logRatio(i))
          : options.rejection === 'sequence'
            ? clampExp(sum)
            : clampExp(sum / members.length);
      const rejected = options.rejection !== 'none' && (banded < options.lower || banded > options.upper);
      mask[i] = rejected ? 0 : 1;
      rowRejected ||= rejected;
    }
    if (rowRejected) rejectedRows++;
  });
  const tokens = rows.flat();
  const mean = (f: (i: number) => number) => tokens.reduce((s, i) => s + f(i), 0) / tokens.length;
  return {
    weights,
    mask,
    k3Kl: mean((i) => Math.exp(logRatio(i)) - logRatio(i) - 1),
    kl: mean((i) => -logRatio(i)),
    maskedShare: mean((i) => 1 - mask[i]!),
    maskedSequenceShare: rejectedRows / B,
  };
}

const correct = (options: RolloutCorrectionOptions) =>
  rolloutCorrection({ rows: B, columns: T, lossMask, oldLogProbs, rolloutLogProbs }, options);

describe('rolloutCorrection', () => {
  it.each<Required<RolloutCorrectionOptions>>([
    { weights: 'token', threshold: 2, rejection: 'none', upper: 2, lower: 0.5 },
    { weights: 'sequence', threshold: 2, rejection: 'none', upper: 2, lower: 0.5 },
    { weights: 'token', threshold: 1.5, rejection: 'token', upper: 1.6, lower: 0.7 },
    { weights: 'sequence', threshold: 3, rejection: 'sequence', upper: 2, lower: 0.5 },
    { weights: 'none', threshold: 2, rejection: 'geometric', upper: 1.1, lower: 0.9 },
  ])('matches the float64 weights, mask and metrics for %o', (options) => {
    const expected = reference64(options);
    const { weights, lossMask: kept, metrics } = correct(options);
    expectAllClose(weights, expected.weights);
    expect(Array.from(kept)).toEqual(expected.mask);
    expectAllClose([metrics.k3Kl, metrics.kl], [expected.k3Kl, expected.kl]);
    expect(metrics.maskedShare).toBeCloseTo(expected.maskedShare, 12);
    expect(metrics.maskedSequenceShare).toBe(expected.maskedSequenceShare);
  });

  it('exercises truncation and rejection with this data', () => {
    const token = correct({ weights: 'token', threshold: 1.5, rejection: 'token', upper: 1.6, lower: 0.7 });
    expect(token.metrics.truncatedShare).toBeGreaterThan(0);
    expect(token.metrics.ratioMax).toBeGreaterThan(1.5);
    expect(token.metrics.maskedShare).toBeGreaterThan(0);
    expect(token.metrics.maskedShare).toBeLessThan(1);
  });

  it('takes the ratio trainer over engine, not the wrong way round', () => {
    // The engine gave this token probability e^-1.5, the trainer e^-1: r = pi_old / pi_rollout = e^0.5 > 1.
    const { weights, metrics } = rolloutCorrection(
      {
        rows: 1,
        columns: 3,
        lossMask: [0, 1, 1],
        oldLogProbs: [0, -1, -2],
        rolloutLogProbs: [0, -1.5, -1.8],
      },
      { weights: 'token', threshold: 10 },
    );
    expectAllClose(weights, [0, Math.exp(0.5), Math.exp(-0.2)]);
    // The wrong way round would give e^-0.5 and e^0.2.
    expect(Math.abs(weights[1]! - Math.exp(-0.5))).toBeGreaterThan(1);
    expectAllClose([metrics.kl], [(-0.5 + 0.2) / 2]);
  });

  it('gives weights of 1 and no mismatch when engine and trainer agree', () => {
    const {
      weights,
      lossMask: kept,
      metrics,
    } = rolloutCorrection(
      { rows: B, columns: T, lossMask, oldLogProbs, rolloutLogProbs: oldLogProbs },
      { weights: 'sequence', rejection: 'geometric', upper: 1.001 },
    );
    expect(Array.from(weights)).toEqual(lossMask);
    expect(Array.from(kept)).toEqual(lossMask);
    expect(metrics).toMatchObject({ k3Kl: 0, kl: 0, ratioMean: 1, ratioMax: 1, maskedShare: 0 });
  });

  it('names the option or field of bad input', () => {
    expect(() => resolveRolloutCorrection({ threshold: 0 })).toThrow(
      /option 'threshold' must be a finite number > 0/,
    );
    expect(() => resolveRolloutCorrection({ weights: 'seq' as never })).toThrow(/option 'weights'/);
    expect(() => resolveRolloutCorrection({ upper: 2, lower: 3 })).toThrow(
      /option 'lower' must be a number in \(0, upper = 2\)/,
    );
    expect(() => resolveRolloutCorrection({ treshold: 2 } as never)).toThrow(/unknown option 'treshold'/);
    expect(() =>
      rolloutCorrection({
        rows: B,
        columns: T,
        lossMask,
        oldLogProbs,
        rolloutLogProbs: rolloutLogProbs.slice(1),
      }),
    ).toThrow(/rolloutLogProbs has 19 entries, expected rows x columns = 20/);
    const nan = [...rolloutLogProbs];
    nan[6] = Number.NaN;
    expect(() =>
      rolloutCorrection({ rows: B, columns: T, lossMask, oldLogProbs, rolloutLogProbs: nan }),
    ).toThrow(/rolloutLogProbs\[6\] \(row 1, column 1\) is NaN on a loss token/);
  });
});

describe.each(TEST_BACKENDS)('rollout correction in the loss and the updater on %s', (backend) => {
  useBackend(backend);

  it('multiplies the policy-gradient term only, token by token', async () => {
    const advantages = lossMask.map((m) => m * (random() * 2 - 1));
    const logProbs = oldLogProbs.map((v, i) => v + lossMask[i]! * (random() * 0.2 - 0.1));
    const { weights } = correct({ weights: 'token' });
    const input = {
      logProbs: tf.tensor2d(logProbs, [B, T]),
      oldLogProbs: tf.tensor2d(oldLogProbs, [B, T]),
      advantages: tf.tensor2d(advantages, [B, T]),
      lossMask: tf.tensor2d(lossMask, [B, T]),
    };
    const config = { dualClip: null, clipLow: 0.99, clipHigh: 10 } as const;
    // With the clip out of reach the vanilla term is -A rho; weighted: mean over tokens of -w A rho.
    const weighted = policyLoss({ ...input, importanceWeights: tf.tensor2d(weights, [B, T]) }, config);
    const tokens = lossMask.reduce((a, b) => a + b, 0);
    const expected =
      lossMask.reduce(
        (sum, m, i) => sum - m * weights[i]! * advantages[i]! * Math.exp(logProbs[i]! - oldLogProbs[i]!),
        0,
      ) / tokens;
    expectAllClose(await weighted.loss.data(), [expected]);
  });

  it('computes pi_old itself, weighs by pi_old / pi_rollout, and reports the mismatch', async () => {
    const V = 5;
    const r = seededRandom(7);
    const tokens = Array.from({ length: B * T }, () => Math.floor(r() * V));
    const advantages = lossMask.map((m, i) => m * (Math.floor(i / T) % 2 === 0 ? 1 : -1));
    const w = uniform(r, V * V, -0.5, 0.5);
    const b = uniform(r, V, -0.2, 0.2);
    const trained = async (extra: Partial<UpdateBatch>, rolloutCorrection?: RolloutCorrectionOptions) => {
      const tiny = tinyModel(V, w, b);
      const updater = new GrpoUpdater({
        model: tiny.model,
        variables: tiny.variables,
        learningRate: 0.1,
        loss: { clipLow: 0.2, clipHigh: 0.28 },
        ...(rolloutCorrection === undefined ? {} : { rolloutCorrection }),
      });
      const report = await updater.update({ rows: B, columns: T, tokens, lossMask, advantages, ...extra });
      const after = await tiny.variables[0]!.data();
      updater.dispose();
      tiny.dispose();
      return { report, after };
    };
    // The trainer's own log-probs, as pi_old left out gives them.
    const plain = await trained({});
    // No mismatch: the engine reports the trainer's log-probs (float64 here, float32 there).
    const same = await trained({ rolloutLogProbs: ownLogProbs(V, w, b, tokens) }, { weights: 'token' });
    expect(same.report.correction!.weightMean).toBeCloseTo(1, 5);
    expect(same.report.correction!.k3Kl).toBeCloseTo(0, 6);
    expectAllClose(same.after, plain.after, { atol: 1e-6, rtol: 1e-5 });
    // At the first step pi_theta = pi_old, the ratio is 1 and the surrogate is -mean(w A): exact in w.
    const tokenCount = lossMask.reduce((a, c) => a + c, 0);
    const firstLoss = (weight: (i: number) => number) =>
      -lossMask.reduce((sum, m, i) => sum + m * weight(i) * advantages[i]!, 0) / tokenCount;
    expectAllClose([plain.report.steps[0]!.losses.pgLoss!], [firstLoss(() => 1)]);
    // A perturbed engine (it under-samples some tokens): the weights act, the loss is -mean(min(r, 2) A).
    const own = ownLogProbs(V, w, b, tokens);
    const perturbed = own.map((v, i) => v - lossMask[i]! * 0.4 * (i % 3));
    const mismatched = await trained({ rolloutLogProbs: perturbed }, { weights: 'token' });
    expect(mismatched.report.correction!.k3Kl).toBeGreaterThan(0.01);
    expect(mismatched.report.correction!.weightMean).toBeGreaterThan(1);
    const pgLoss = mismatched.report.steps[0]!.losses.pgLoss!;
    expectAllClose([pgLoss], [firstLoss((i) => Math.min(Math.exp(own[i]! - perturbed[i]!), 2))]);
    expect(Math.abs(pgLoss - firstLoss(() => 1))).toBeGreaterThan(1e-2);
    await expect(trained({}, { weights: 'token' })).rejects.toThrow(/needs batch\.rolloutLogProbs/);
  });
});

/** log pi of every token under the tiny model (column 0, which no logit predicts, gets 0). */
function ownLogProbs(V: number, w: number[], b: number[], tokens: number[]): number[] {
  return tokens.map((token, i) =>
    i % T === 0 ? 0 : lossMask[i] === 1 ? tokenStats64([...w, ...b], V, tokens[i - 1]!, token, 1).logProb : 0,
  );
}
