import { seededRandom } from '@taorl/eval';
import * as tf from '@tensorflow/tfjs';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type GradientSettings,
  GrpoUpdater,
  type GrpoUpdaterOptions,
  learningRateAt,
  type MicroBatch,
  type MicroBatchGradient,
  type MicroBatchGradients,
  microBatchGradient,
  type UpdateBatch,
} from '../src/index';
import { TEST_BACKENDS, useBackend } from './support/backends';
import { expectAllClose } from './support/close';
import { uniform } from './support/random';
import { finiteDifferences } from './support/reference64';
import { adamW64, type Batch64, tinyModel, tokenStats64, updaterLoss64 } from './support/tiny-model';

const V = 6;
const [ROWS, COLUMNS] = [3, 6];
const random = seededRandom(23);
const initialW = uniform(random, V * V, -0.5, 0.5);
const initialB = uniform(random, V, -0.2, 0.2);
const tokens = Array.from({ length: ROWS * COLUMNS }, () => Math.floor(random() * V));
// Prompt tokens first (mask 0), then the response; row 1 ends in two padding tokens.
const lossMask = [0, 0, 1, 1, 1, 1, 0, 1, 1, 1, 0, 0, 0, 0, 0, 1, 1, 0];
const rowAdvantage = [1.2, -0.8, -0.4];
const advantages = lossMask.map((m, index) => m * rowAdvantage[Math.floor(index / COLUMNS)]!);
const temperature = 0.8;
// Rollout and reference log-probs: the initial policy's, perturbed so ratios start away from 1.
const initialLogProb = (index: number) =>
  index % COLUMNS === 0
    ? 0
    : tokenStats64([...initialW, ...initialB], V, tokens[index - 1]!, tokens[index]!, temperature).logProb;
const oldLogProbs = lossMask.map((m, index) => m * (initialLogProb(index) + (random() * 0.6 - 0.3)));
const refLogProbs = lossMask.map((m, index) => m * (initialLogProb(index) + (random() * 0.6 - 0.3)));

const batch: UpdateBatch = {
  rows: ROWS,
  columns: COLUMNS,
  tokens,
  lossMask,
  advantages,
  oldLogProbs,
  refLogProbs,
};
const lossConfig = {
  clipLow: 0.2,
  clipHigh: 0.28,
  dualClip: 3,
  klCoef: 0.05,
  klKind: 'low_var_kl' as const,
  entropyCoef: 0.01,
  aggregation: 'token-mean' as const,
};
const adamW = { beta1: 0.9, beta2: 0.99, epsilon: 1e-3, weightDecay: 0.1 };

/** A micro-batch's gradient on `replica`, answered with plain arrays as a worker thread would. */
async function asArrays(
  replica: ReturnType<typeof tinyModel>,
  micro: MicroBatch,
  settings: GradientSettings,
): Promise<MicroBatchGradient<Float32Array>> {
  const { gradients, metrics } = await microBatchGradient(replica.model, replica.variables, micro, settings);
  const arrays = await Promise.all(
    gradients.map(async (g) => (g === null ? null : ((await g.data()) as Float32Array))),
  );
  tf.dispose(gradients.filter((g) => g !== null));
  return { gradients: arrays, metrics };
}

describe.each(TEST_BACKENDS)('GrpoUpdater on %s', (backend) => {
  useBackend(backend);
  const models: { dispose: () => void }[] = [];
  const updaters: GrpoUpdater[] = [];
  afterEach(() => {
    for (const item of [...models.splice(0), ...updaters.splice(0)]) item.dispose();
  });
  const setup = (options: Partial<GrpoUpdaterOptions> = {}) => {
    const tiny = tinyModel(V, initialW, initialB);
    models.push(tiny);
    const updater = new GrpoUpdater({
      model: tiny.model,
      variables: tiny.variables,
      learningRate: 0.05,
      temperature,
      adamW,
      loss: lossConfig,
      ...options,
    });
    updaters.push(updater);
    const weights = async () => [...(await tiny.variables[0]!.data()), ...(await tiny.variables[1]!.data())];
    return { updater, weights, tiny };
  };

  it('matches a float64 recomputation of 3 PPO epochs: gradients by finite differences, clip, AdamW, cosine schedule', async () => {
    const schedule = { kind: 'cosine' as const, warmupSteps: 2, totalSteps: 4, minRatio: 0.1 };
    const { updater, weights } = setup({ ppoEpochs: 3, microBatchRows: 2, maxGradNorm: 0.05, schedule });
    const report = await updater.update(batch);
    expect(report.steps.map((step) => step.epoch)).toEqual([0, 1, 2]);
    expect(report.skippedSteps).toBe(0);

    const config = { vocab: V, temperature, ...lossConfig };
    const batch64: Batch64 = {
      rows: ROWS,
      columns: COLUMNS,
      tokens,
      lossMask,
      advantages,
      oldLogProbs,
      refLogProbs,
    };
    const lr = [0, 1, 2].map((step) => learningRateAt(0.05, schedule, step));
    const lossAt = (params: number[]) => updaterLoss64(params, batch64, config);
    const reference = adamW64(
      [...initialW, ...initialB],
      (params) => finiteDifferences(lossAt, params),
      { lr, ...adamW, decays: (index) => index < V * V },
      0.05,
    );
    expect(reference.norms[0]).toBeGreaterThan(0.05); // the clip is active
    expectAllClose(
      report.steps.map((step) => step.gradNorm),
      reference.norms,
      { rtol: 1e-4 },
    );
    expectAllClose(
      report.steps.map((step) => step.learningRate),
      lr,
    );
    expectAllClose(await weights(), reference.params, { atol: 2e-5 });
    expectAllClose([report.steps[0]!.losses.loss!], [lossAt([...initialW, ...initialB])]);
  });

  it('accumulates micro-batches and packs sequences without changing the step', async () => {
    const full = setup({ loss: { ...lossConfig, aggregation: 'seq-mean-token-mean' } });
    await full.updater.update(batch);
    const micro = setup({ microBatchRows: 1, loss: { ...lossConfig, aggregation: 'seq-mean-token-mean' } });
    await micro.updater.update(batch);
    expectAllClose(await micro.weights(), await full.weights(), { atol: 1e-6 });

    // Rows 0 and 2 packed into one row of 12 (the linear model ignores position), row 1 on its own.
    const rowOf = <T>(values: readonly T[], row: number) => values.slice(row * COLUMNS, (row + 1) * COLUMNS);
    const packedRows = [[0, 2], [1]];
    const pack = <T>(values: readonly T[], pad: T) =>
      packedRows.flatMap((rows) => {
        const joined = rows.flatMap((row) => rowOf(values, row));
        return [...joined, ...Array<T>(2 * COLUMNS - joined.length).fill(pad)];
      });
    const sequenceIds = pack(
      [0, 1, 2].flatMap((row) => Array<number>(COLUMNS).fill(row)),
      -1,
    );
    const packed = setup({ loss: { ...lossConfig, aggregation: 'seq-mean-token-mean' } });
    await packed.updater.update({
      rows: 2,
      columns: 2 * COLUMNS,
      tokens: pack(tokens, 0),
      lossMask: pack(lossMask, 0),
      advantages: pack(advantages, 0),
      oldLogProbs: pack(oldLogProbs, 0),
      refLogProbs: pack(refLogProbs, 0),
      sequenceIds,
    });
    expectAllClose(await packed.weights(), await full.weights(), { atol: 1e-6 });
  });

  it('takes micro-batch gradients computed elsewhere (a replica model) and sums them to the same step, bit for bit', async () => {
    const options = { ppoEpochs: 2, miniBatchRows: 2, microBatchRows: 1 };
    const local = setup(options);
    const localReport = await local.updater.update(batch);
    // The "elsewhere" of a data-parallel trainer: a replica whose variables get the updater's current values
    // before every call, answering with plain arrays as a worker thread would.
    const replica = tinyModel(V, initialW, initialB);
    models.push(replica);
    const calls: number[] = [];
    let main: ReturnType<typeof setup> | null = null;
    const microBatchGradients: MicroBatchGradients = async (micros, settings) => {
      calls.push(micros.length);
      replica.variables.forEach((variable, i) => {
        (variable as tf.Variable).assign(main!.tiny.variables[i]!);
      });
      // Computed last to first: the order of computing must not matter, only the order of the results.
      const results = [];
      for (const micro of [...micros].reverse()) {
        results.unshift(await asArrays(replica, micro, settings));
      }
      return results;
    };
    main = setup({ ...options, microBatchGradients });
    const report = await main.updater.update(batch);
    // Two epochs of two mini-batches (rows 0-1, row 2): four steps, each its micro-batches in one call.
    expect(calls).toEqual([2, 1, 2, 1]);
    expect(report).toEqual(localReport);
    expect(await main.weights()).toEqual(await local.weights());

    const short = setup({ ...options, microBatchGradients: async () => [] });
    await expect(short.updater.update(batch)).rejects.toThrow(
      'options.microBatchGradients returned 0 results for 2 micro-batches',
    );
  });

  it('splits a mini-batch into equal micro-batches within microBatchRows (5 rows by 4: 3 + 2, not 4 + 1)', async () => {
    // Rows 0-2 of the batch, then rows 0-1 again.
    const rowsOf = <T>(values: readonly T[]) => [...values, ...values.slice(0, 2 * COLUMNS)];
    const five: UpdateBatch = {
      rows: 5,
      columns: COLUMNS,
      tokens: rowsOf(tokens),
      lossMask: rowsOf(lossMask),
      advantages: rowsOf(advantages),
      oldLogProbs: rowsOf(oldLogProbs),
      refLogProbs: rowsOf(refLogProbs),
    };
    const sizes: number[][] = [];
    const split = setup({
      microBatchRows: 4,
      microBatchGradients: async (micros, settings) => {
        sizes.push(micros.map((micro) => micro.batch.rows));
        const results = [];
        for (const micro of micros) results.push(await asArrays(split.tiny, micro, settings));
        return results;
      },
    });
    const whole = setup();
    await split.updater.update(five);
    await whole.updater.update(five);
    expect(sizes).toEqual([[3, 2]]);
    expectAllClose(await split.weights(), await whole.weights(), { atol: 1e-6 });
  });

  it('takes one optimizer step per mini-batch and epoch, computing missing old log-probs once', async () => {
    const { updater } = setup({ ppoEpochs: 2, miniBatchRows: 2 });
    const { oldLogProbs: _, ...withoutOld } = batch;
    const report = await updater.update(withoutOld);
    expect(report.steps.map((step) => [step.epoch, step.miniBatch, step.step])).toEqual([
      [0, 0, 0],
      [0, 1, 1],
      [1, 0, 2],
      [1, 1, 3],
    ]);
    expect(updater.step).toBe(4);
    // Old log-probs from the current weights: the very first step is exactly on-policy.
    expect(report.steps[0]!.losses.meanRatio).toBeCloseTo(1, 6);
    expect(report.steps[0]!.losses.approxKl).toBeCloseTo(0, 6);
    expect(report.steps[0]!.tokens).toBe(7);
    expect(report.steps[1]!.tokens).toBe(2);
    // Later steps see a moved policy against the same fixed old log-probs.
    expect(Math.abs(report.steps[3]!.losses.meanRatio! - 1)).toBeGreaterThan(1e-4);
  });

  it('skips a step with a non-finite gradient, leaving weights and optimizer state untouched', async () => {
    const tiny = tinyModel(V, initialW, initialB);
    models.push(tiny);
    let poison = true;
    const updater = new GrpoUpdater({
      model: (ids) =>
        tf.tidy(() => (poison ? tf.mul(tiny.model(ids), Number.NaN) : tiny.model(ids)) as tf.Tensor3D),
      variables: tiny.variables,
      learningRate: 0.05,
      adamW,
    });
    updaters.push(updater);
    const before = [...(await tiny.variables[0]!.data())];
    const poisoned = await updater.update(batch);
    expect(poisoned.skippedSteps).toBe(1);
    // wasm's clipByValue maps NaN to a bound, so there the loss can stay finite while the gradient is NaN.
    expect(poisoned.steps[0]!.skipReason).toMatch(
      /^non-finite (loss|gradient norm) \(NaN\); weights and optimizer state left unchanged/,
    );
    expect(Array.from(await tiny.variables[0]!.data())).toEqual(before);
    expect(updater.step).toBe(0);

    poison = false;
    await updater.update(batch);
    const clean = setup({ loss: undefined, temperature: 1 });
    await clean.updater.update(batch);
    expect(Array.from(await tiny.variables[0]!.data())).toEqual(
      Array.from(await clean.tiny.variables[0]!.data()),
    );
  });

  it('resumes exactly from exported optimizer state, and rejects state of the wrong shape', async () => {
    const schedule = { kind: 'cosine' as const, totalSteps: 4, warmupSteps: 1 };
    const straight = setup({ schedule });
    for (let i = 0; i < 3; i++) await straight.updater.update(batch);

    const first = setup({ schedule });
    await first.updater.update(batch);
    const state = first.updater.exportOptimizerState();
    expect(state.step).toBe(1);
    // A fresh model and updater given the first run's weights and optimizer state take the same next steps.
    const copyWeights = (to: readonly tf.Variable[]) => {
      for (const [i, variable] of to.entries()) variable.assign(first.tiny.variables[i] as tf.Tensor);
    };
    const resumed = setup({ schedule });
    copyWeights(resumed.tiny.variables);
    resumed.updater.importOptimizerState(state);
    for (let i = 0; i < 2; i++) await resumed.updater.update(batch);
    expect(resumed.updater.step).toBe(3);
    expect(await resumed.weights()).toEqual(await straight.weights());

    // Without the optimizer state the moments restart and the weights differ.
    const naive = setup({ schedule });
    copyWeights(naive.tiny.variables);
    for (let i = 0; i < 2; i++) await naive.updater.update(batch);
    expect(await naive.weights()).not.toEqual(await straight.weights());

    const wrong = { ...state, secondMoments: [state.secondMoments[0]!, new Float32Array(2)] };
    expect(() => resumed.updater.importOptimizerState(wrong)).toThrow(
      'state.secondMoments[1] has 2 values, variable 1 has 6',
    );
    expect(() => resumed.updater.importOptimizerState({ ...state, step: -1 })).toThrow('state.step');
  });

  it('skips a mini-batch without loss tokens instead of decaying the weights', async () => {
    const { updater, weights } = setup({ miniBatchRows: 1 });
    const before = await weights();
    const masked = lossMask.map((m, index) => (index < COLUMNS ? m : 0));
    const report = await updater.update({
      ...batch,
      lossMask: masked,
      advantages: advantages.map((a, i) => a * masked[i]!),
    });
    expect(report.steps.map((step) => step.skipped)).toEqual([false, true, true]);
    expect(report.steps[1]!.skipReason).toMatch(/^no loss tokens in the mini-batch/);
    expect(updater.step).toBe(1);
    expect(await weights()).not.toEqual(before);
  });

  it('rejects NaN advantages and malformed batches by field and position', async () => {
    const { updater } = setup();
    const nan = [...advantages];
    nan[9] = Number.NaN;
    await expect(updater.update({ ...batch, advantages: nan })).rejects.toThrow(
      'GrpoUpdater.update: batch.advantages[9] (row 1, column 3) is NaN',
    );
    await expect(updater.update({ ...batch, lossMask: lossMask.slice(1) })).rejects.toThrow(
      'batch.lossMask has 17 entries',
    );
    const firstToken = [...lossMask];
    firstToken[6] = 1;
    await expect(updater.update({ ...batch, lossMask: firstToken })).rejects.toThrow(
      'batch.lossMask[6] (row 1, column 0) is 1 on the first token of a sequence',
    );
    await expect(updater.update({ ...batch, tokens: tokens.map(() => V) })).rejects.toThrow(
      "token id 6 is outside the model's vocabulary of 6",
    );
    const { refLogProbs: _, ...withoutRef } = batch;
    await expect(updater.update(withoutRef)).rejects.toThrow('loss.klCoef > 0 needs batch.refLogProbs');
    expect(() => setup({ ppoEpochs: 0 })).toThrow('options.ppoEpochs must be an integer >= 1');
    expect(() => setup({ temperature: 0 })).toThrow('options.temperature must be a positive number');
    expect(() => setup({ microBatchRows: 1.5 })).toThrow('options.microBatchRows must be an integer >= 1');
    expect(() => setup({ schedule: { kind: 'cosine', totalSteps: 0 } })).toThrow('schedule.totalSteps');
    expect(() => setup({ loss: { clipHigh: -1 } })).toThrow('config.clipHigh');
  });

  it('keeps tf.memory().numTensors flat over 20 update steps', async () => {
    const { updater } = setup({ microBatchRows: 2 });
    await updater.update(batch);
    const before = tf.memory().numTensors;
    for (let step = 0; step < 20; step++) await updater.update(batch);
    expect(tf.memory().numTensors).toBe(before);
    expect(updater.step).toBe(21);
  });
});
