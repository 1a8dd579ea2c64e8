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

/** A verl threshold spec: "lower_upper" or an upper bound alone. */
function parseSpec(spec: number | string): { lower: number | null; upper: number } {
  if (typeof spec === 'string' && spec.includes('_')) {
    const [lower, upper] = spec.split('_').map(Number) as [number, number];
    return { lower, upper };
  }
  return { lower: null, upper: Number(spec) };
}

interface Reference {
  weights: 'token' | 'sequence' | 'none';
  threshold: number | string;
  batchNormalize: boolean;
  rejection: string;
  rejectionThreshold?: number | string;
}

/**
 * Re-stated in float64 from verl-project/verl@1dda039 verl/trainer/ppo/rollout_corr_helper.py over a [rows,
 * columns] batch: compute_rollout_correction_weights (TIS clamp, IcePop band on the raw weights, batch
 * normalisation), compute_rollout_rejection_mask (k1 / k2 / k3 per token, their masked sum, mean and max per row,
 * options chained by AND, verl_F.masked_mean's 1e-8) and the masked fractions. `k1`: verl's code compares -x with
 * [log lower, log upper] (a band on 1 / r), its docs a band on the ratio r, which taorl follows (issue 47 accepts
 * it); the two agree when lower = 1 / upper. `mistake` flips one plausible error on, for the tests to tell apart.
 */
function reference64(
  data: { rows: number; columns: number; mask: number[]; old: number[]; rollout: number[] },
  options: Reference,
  { k1 = 'docs', mistake }: { k1?: 'docs' | 'code'; mistake?: 'icepop-on-inverse' | 'per-row-share' } = {},
) {
  const { rows, columns, mask, old, rollout } = data;
  const clamp = (x: number) => Math.min(20, Math.max(-20, x));
  const at = (row: number) => Array.from({ length: columns }, (_, c) => row * columns + c);
  const maskedMean = (values: number[], over: number[]) =>
    over.reduce((s, i) => s + values[i]! * mask[i]!, 0) / (over.reduce((s, i) => s + mask[i]!, 0) + 1e-8);
  const all = Array.from({ length: rows * columns }, (_, i) => i);
  const logRatio = all.map((i) => old[i]! - rollout[i]!);
  const rowSum = (values: number[], row: number) => at(row).reduce((s, i) => s + values[i]! * mask[i]!, 0);
  const raw = all.map((i) =>
    options.weights === 'sequence'
      ? Math.exp(clamp(rowSum(logRatio, Math.floor(i / columns)))) * mask[i]!
      : Math.exp(clamp(logRatio[i]!)) * mask[i]!,
  );
  const { lower, upper } = parseSpec(options.threshold);
  let weights = raw.map((r) => {
    if (lower === null) return Math.min(r, upper);
    const inBand =
      mistake === 'icepop-on-inverse' ? 1 / r >= lower && 1 / r <= upper : r >= lower && r <= upper;
    return inBand ? r : 0;
  });
  const weightMean = maskedMean(weights, all);
  let factor = 1;
  if (options.batchNormalize && options.weights !== 'none') {
    const validRows = Array.from({ length: rows }, (_, r) => r).filter((r) => rowSum(mask, r) > 0);
    const mean =
      options.weights === 'token'
        ? maskedMean(weights, all)
        : validRows.reduce((s, r) => s + maskedMean(weights, at(r)), 0) / validRows.length;
    if (mean > 1e-8) {
      factor = mean;
      weights = weights.map((w) => w / mean);
    }
  }
  if (options.weights === 'none') weights = mask.map((m) => m);

  const x = logRatio.map(clamp);
  const k = {
    k1: x.map((v) => (k1 === 'code' ? -v : v)),
    k2: x.map((v) => 0.5 * v * v),
    k3: x.map((v) => Math.exp(v) - 1 - v),
  };
  const modes = [...new Set(options.rejection.split(',').map((m) => m.trim()))].filter((m) => m !== 'none');
  const specs = String(options.rejectionThreshold ?? '').split(',');
  let keep = all.map(() => 1);
  modes.forEach((mode, n) => {
    const spec = specs[specs.length === 1 ? 0 : n]!;
    const kind = mode.slice(-2) as 'k1' | 'k2' | 'k3';
    const bounds = kind === 'k1' ? parseSpec(spec) : { lower: null, upper: Number(spec) };
    const lowerLog = kind === 'k1' ? Math.log(bounds.lower ?? 1 / bounds.upper) : null;
    const stat = all.map((i) => {
      const row = at(Math.floor(i / columns));
      if (mode.startsWith('token_')) return k[kind][i]!;
      if (mode.startsWith('seq_sum_')) return rowSum(k[kind], Math.floor(i / columns));
      if (mode.startsWith('seq_mean_')) return maskedMean(k[kind], row);
      const values = row.filter((j) => mask[j] === 1).map((j) => k[kind][j]!);
      return values.length === 0 ? 0 : Math.max(...values);
    });
    keep = keep.map((kept, i) => {
      const v = stat[i]!;
      const pass = lowerLog === null ? v <= bounds.upper : v >= lowerLog && v <= Math.log(bounds.upper);
      return pass ? kept : 0;
    });
  });
  const rowsMasked = Array.from({ length: rows }, (_, r) => r).filter((r) =>
    at(r).some((i) => mask[i] === 1 && keep[i] === 0),
  ).length;
  const rowsWithTokens = Array.from({ length: rows }, (_, r) => r).filter((r) => rowSum(mask, r) > 0).length;
  return {
    weights: weights.map((w, i) => w * mask[i]!),
    mask: keep.map((kept, i) => kept * mask[i]!),
    weightMean: options.weights === 'none' ? 1 : weightMean,
    batchNormFactor: factor,
    k3Kl: maskedMean(
      logRatio.map((v) => Math.exp(v) - v - 1),
      all,
    ),
    kl: maskedMean(
      logRatio.map((v) => -v),
      all,
    ),
    maskedShare: maskedMean(
      keep.map((kept) => 1 - kept),
      all,
    ),
    maskedSequenceShare: rowsMasked / (mistake === 'per-row-share' ? rowsWithTokens : rows),
  };
}

// Six rows of six: row 4 has no loss token (a masked trajectory), row 2 a token far off (x = 1.6).
const wide = (() => {
  const [rows, columns] = [6, 6];
  const r = seededRandom(4711);
  const mask = Array.from({ length: rows * columns }, (_, i): number =>
    Math.floor(i / columns) === 4 || i % columns === 0 ? 0 : 1,
  );
  const old = mask.map((m) => m * (-0.2 - 2 * r()));
  const rollout = old.map((v, i) => v + mask[i]! * (i === 14 ? -1.6 : r() * 0.9 - 0.45));
  return { rows, columns, mask, old, rollout };
})();

const corrected = (options: RolloutCorrectionOptions) =>
  rolloutCorrection(
    {
      rows: wide.rows,
      columns: wide.columns,
      lossMask: wide.mask,
      oldLogProbs: wide.old,
      rolloutLogProbs: wide.rollout,
    },
    options,
  );

const plain = { weights: 'token', threshold: 2, batchNormalize: false } as const;

describe('rolloutCorrection against verl re-stated in float64', () => {
  it.each<Reference>([
    { ...plain, rejection: 'none' },
    { ...plain, weights: 'sequence', threshold: 1.5, rejection: 'none' },
    { ...plain, threshold: '0.8_1.25', rejection: 'none' },
    { ...plain, weights: 'sequence', threshold: '0.5_1.2', rejection: 'none' },
    { ...plain, threshold: 1.3, batchNormalize: true, rejection: 'none' },
    { ...plain, weights: 'sequence', threshold: '0.6_1.6', batchNormalize: true, rejection: 'none' },
    { ...plain, weights: 'none', rejection: 'token_k1', rejectionThreshold: '0.7_1.3' },
    { ...plain, rejection: 'seq_sum_k1', rejectionThreshold: 1.5 },
    { ...plain, rejection: 'seq_mean_k1', rejectionThreshold: '0.9_1.1' },
    { ...plain, rejection: 'token_k2', rejectionThreshold: 0.05 },
    { ...plain, rejection: 'token_k3', rejectionThreshold: 0.05 },
    { ...plain, rejection: 'seq_sum_k2', rejectionThreshold: 0.2 },
    { ...plain, rejection: 'seq_sum_k3', rejectionThreshold: 0.2 },
    { ...plain, rejection: 'seq_mean_k2', rejectionThreshold: 0.02 },
    { ...plain, rejection: 'seq_mean_k3', rejectionThreshold: 0.02 },
    { ...plain, rejection: 'seq_max_k2', rejectionThreshold: 0.08 },
    { ...plain, rejection: 'seq_max_k3', rejectionThreshold: 0.08 },
    {
      weights: 'sequence',
      threshold: '0.5_2',
      batchNormalize: true,
      rejection: 'seq_mean_k3,token_k2',
      rejectionThreshold: '0.02,0.05',
    },
    { ...plain, rejection: 'token_k1,seq_max_k3', rejectionThreshold: 1.3 },
  ])('matches the float64 weights, mask and metrics for %o', (options) => {
    const expected = reference64(wide, options);
    const { weights, lossMask: kept, metrics } = corrected(options);
    expectAllClose(weights, expected.weights);
    expect(Array.from(kept)).toEqual(expected.mask);
    expectAllClose(
      [metrics.k3Kl, metrics.kl, metrics.weightMean, metrics.batchNormFactor],
      [expected.k3Kl, expected.kl, expected.weightMean, expected.batchNormFactor],
    );
    expect(metrics.maskedShare).toBeCloseTo(expected.maskedShare, 6);
    expect(metrics.maskedSequenceShare).toBeCloseTo(expected.maskedSequenceShare, 12);
    // Every rejection case masks some rows and keeps others: a case that kept all would test nothing.
    if (options.rejection !== 'none') {
      expect(metrics.maskedShare).toBeGreaterThan(0);
      expect(metrics.maskedSequenceShare).toBeLessThan(1);
    }
  });

  it('exercises truncation and the band with this data', () => {
    expect(corrected({ weights: 'token', threshold: 1.3 }).metrics.truncatedShare).toBeGreaterThan(0);
    const icepop = corrected({ weights: 'token', threshold: '0.8_1.25' });
    const zeroed = Array.from(icepop.weights).filter((w, i) => wide.mask[i] === 1 && w === 0).length;
    expect(zeroed).toBeGreaterThan(0);
    expect(icepop.metrics.truncatedShare).toBeCloseTo(zeroed / wide.mask.reduce((a, b) => a + b, 0), 12);
  });

  it('applies the IcePop band to r = pi_old / pi_rollout, not to 1 / r', () => {
    const options: Reference = { ...plain, threshold: '0.5_1.2', rejection: 'none' };
    const right = reference64(wide, options);
    const inverse = reference64(wide, options, { mistake: 'icepop-on-inverse' });
    expect(right.weights).not.toEqual(inverse.weights);
    expectAllClose(corrected(options).weights, right.weights);
  });

  it('divides maskedSequenceShare by all rows, those without loss tokens too (verl)', () => {
    const options: Reference = { ...plain, weights: 'none', rejection: 'token_k2', rejectionThreshold: 0.05 };
    const allRows = reference64(wide, options).maskedSequenceShare;
    const perRow = reference64(wide, options, { mistake: 'per-row-share' }).maskedSequenceShare;
    expect(allRows).not.toBe(perRow);
    expect(corrected(options).metrics.maskedSequenceShare).toBeCloseTo(allRows, 12);
  });

  it('chains modes: a token must pass every one, each at its own threshold', () => {
    const alone = (rejection: string, rejectionThreshold: number) =>
      Array.from(corrected({ weights: 'none', rejection, rejectionThreshold }).lossMask);
    const chained = Array.from(
      corrected({ weights: 'none', rejection: 'seq_mean_k3,token_k2', rejectionThreshold: '0.02,0.05' })
        .lossMask,
    );
    const [first, second] = [alone('seq_mean_k3', 0.02), alone('token_k2', 0.05)];
    expect(chained).toEqual(first.map((kept, i) => kept * second[i]!));
    expect(chained).not.toEqual(first);
    expect(chained).not.toEqual(second);
  });

  it('normalises the weights to a batch mean of 1 per token or per sequence', () => {
    const token = corrected({ weights: 'token', threshold: 1.3, batchNormalize: true });
    const tokens = wide.mask.reduce((a, b) => a + b, 0);
    expect(Array.from(token.weights).reduce((a, b) => a + b, 0) / tokens).toBeCloseTo(1, 5);
    expect(token.metrics.batchNormFactor).not.toBeCloseTo(1, 2);
    const sequence = corrected({ weights: 'sequence', threshold: 1.5, batchNormalize: true });
    const perRow = [0, 1, 2, 3, 5].map((row) => sequence.weights[row * wide.columns + 1]!);
    expect(perRow.reduce((a, b) => a + b, 0) / perRow.length).toBeCloseTo(1, 5);
  });

  it("reads k1 bounds on the ratio as verl's docs do; verl's code agrees when lower = 1 / upper", () => {
    const symmetric: Reference = {
      ...plain,
      weights: 'none',
      rejection: 'token_k1',
      rejectionThreshold: 1.3,
    };
    expect(reference64(wide, symmetric, { k1: 'code' }).mask).toEqual(reference64(wide, symmetric).mask);
    const skewed = { ...symmetric, rejectionThreshold: '0.7_1.1' };
    expect(reference64(wide, skewed, { k1: 'code' }).mask).not.toEqual(reference64(wide, skewed).mask);
    expect(Array.from(corrected(skewed).lossMask)).toEqual(reference64(wide, skewed).mask);
  });
});

/** The smaller batch of the tests below. */
const correct = (options: RolloutCorrectionOptions) =>
  rolloutCorrection({ rows: B, columns: T, lossMask, oldLogProbs, rolloutLogProbs }, options);

describe('rolloutCorrection', () => {
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
      { weights: 'sequence', rejection: 'seq_mean_k1,seq_max_k3', rejectionThreshold: '1.001,0.001' },
    );
    expect(Array.from(weights)).toEqual(lossMask);
    expect(Array.from(kept)).toEqual(lossMask);
    expect(metrics).toMatchObject({ k3Kl: 0, kl: 0, ratioMean: 1, ratioMax: 1, maskedShare: 0 });
  });

  it('names the option or field of bad input', () => {
    expect(() => resolveRolloutCorrection({ threshold: 0 })).toThrow(
      /option 'threshold' must be a finite number > 0, got 0/,
    );
    expect(() => resolveRolloutCorrection({ threshold: '2_0.5' })).toThrow(
      /option 'threshold' has lower bound 2 above upper bound 0.5 in "2_0.5"/,
    );
    expect(() => resolveRolloutCorrection({ rejection: 'token_k1', rejectionThreshold: '1.5_1.2' })).toThrow(
      /option 'rejectionThreshold' has lower bound 1.5 above upper bound 1.2/,
    );
    expect(() => resolveRolloutCorrection({ rejection: 'seq_k3', rejectionThreshold: 1 })).toThrow(
      /option 'rejection' has unknown mode "seq_k3" \(known: none, token_k1, token_k2/,
    );
    expect(() => resolveRolloutCorrection({ rejection: 'token_k2' })).toThrow(
      /option 'rejectionThreshold' is required with rejection "token_k2"/,
    );
    expect(() => resolveRolloutCorrection({ rejection: 'token_k2', rejectionThreshold: '0.1_0.2' })).toThrow(
      /option 'rejectionThreshold' for mode token_k2 must be one upper bound without '_'/,
    );
    expect(() =>
      resolveRolloutCorrection({ rejection: 'token_k2,seq_max_k3,token_k1', rejectionThreshold: '0.1,0.2' }),
    ).toThrow(/option 'rejectionThreshold' needs one threshold for all modes or one per mode \(3\), got 2/);
    expect(() => resolveRolloutCorrection({ rejectionThreshold: 2 })).toThrow(
      /option 'rejectionThreshold' is set but option 'rejection' is 'none'/,
    );
    expect(() => resolveRolloutCorrection({ weights: 'seq' as never })).toThrow(/option 'weights'/);
    expect(() => resolveRolloutCorrection({ batchNormalize: 'yes' as never })).toThrow(
      /option 'batchNormalize'/,
    );
    expect(() => resolveRolloutCorrection({ treshold: 2 } as never)).toThrow(/option 'treshold' is unknown/);
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

describe.each(TEST_BACKENDS)('verl rollout correction options in the updater on %s', (backend) => {
  useBackend(backend);

  it('trains with IcePop weights, batch-normalised, and a chained rejection, as the float64 reference', async () => {
    const V = 5;
    const r = seededRandom(11);
    const tokens = Array.from({ length: B * T }, () => Math.floor(r() * V));
    const advantages = lossMask.map((m, i) => m * (Math.floor(i / T) % 2 === 0 ? 1 : -0.5));
    const w = uniform(r, V * V, -0.5, 0.5);
    const b = uniform(r, V, -0.2, 0.2);
    const own = ownLogProbs(V, w, b, tokens);
    // x = log pi_old - log pi_rollout is 0, 0.4 or 0.8: ratios 1, 1.49, 2.23.
    const perturbed = own.map((v, i) => v - lossMask[i]! * 0.4 * (i % 3));
    const options: Reference = {
      weights: 'token',
      threshold: '0.9_1.3',
      batchNormalize: true,
      rejection: 'token_k2,seq_mean_k3',
      rejectionThreshold: '0.2,0.15',
    };
    const data = { rows: B, columns: T, mask: lossMask, old: own, rollout: perturbed };
    const expected = reference64(data, options);
    // Far from every bound, so the float32 pi_old cannot flip a decision.
    const x = own.map((v, i) => v - perturbed[i]!);
    for (let row = 0; row < B; row++) {
      const k3 = [0, 1, 2, 3, 4].map((c) => row * T + c).filter((i) => lossMask[i] === 1);
      const mean = k3.reduce((s, i) => s + Math.exp(x[i]!) - 1 - x[i]!, 0) / k3.length;
      expect(Math.abs(mean - 0.15)).toBeGreaterThan(1e-3);
    }
    expect(expected.mask.some((m, i) => m === 0 && lossMask[i] === 1)).toBe(true);
    expect(expected.mask.some((m) => m === 1)).toBe(true);
    expect(expected.weights.some((v, i) => v === 0 && expected.mask[i] === 1 && lossMask[i] === 1)).toBe(
      true,
    );

    const tiny = tinyModel(V, w, b);
    const updater = new GrpoUpdater({
      model: tiny.model,
      variables: tiny.variables,
      learningRate: 0.1,
      loss: { clipLow: 0.2, clipHigh: 0.28 },
      rolloutCorrection: options,
    });
    const report = await updater.update({
      rows: B,
      columns: T,
      tokens,
      lossMask,
      advantages,
      rolloutLogProbs: perturbed,
    });
    updater.dispose();
    tiny.dispose();
    // At the first step pi_theta = pi_old: the surrogate is -sum(w A) over the kept tokens, over their count.
    const kept = expected.mask.reduce((a, c) => a + c, 0);
    const loss = -expected.mask.reduce((s, m, i) => s + m * expected.weights[i]! * advantages[i]!, 0) / kept;
    expectAllClose([report.steps[0]!.losses.pgLoss!], [loss]);
    expect(report.correction!.batchNormFactor).toBeCloseTo(expected.batchNormFactor, 5);
    expect(report.correction!.maskedShare).toBeCloseTo(expected.maskedShare, 6);
  });
});

/** log pi of every token under the tiny model (column 0, which no logit predicts, gets 0). */
function ownLogProbs(V: number, w: number[], b: number[], tokens: number[]): number[] {
  return tokens.map((token, i) =>
    i % T === 0 ? 0 : lossMask[i] === 1 ? tokenStats64([...w, ...b], V, tokens[i - 1]!, token, 1).logProb : 0,
  );
}
