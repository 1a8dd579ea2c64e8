import { readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import type { SftExample } from '@taorl/data';
import { initBackend } from '@taorl/grpo';
import { type ModelConfig, type TransformerPolicy, tinyQwen3Config } from '@taorl/model';
import { initPolicy } from '@taorl/model/node';
import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config/load-config.js';
import { balancedShards } from '../src/sft/batch-shards.js';
import { type SftStepStats, SftTrainer, type SftTrainerOptions } from '../src/sft/sft-trainer.js';
import { PolicyWorkers } from '../src/workers/policy-workers.js';

beforeAll(async () => {
  await initBackend({ prefer: 'wasm' });
});

/** The embedded tiny model with token shift, over a small vocabulary. */
const TINY: ModelConfig = tinyQwen3Config({ vocabSize: 48, maxPositionEmbeddings: 160, tokenShift: true });
/** A Qwen2-shaped model: q/k/v biases, no q/k norm, an untied lm head. */
const QWEN2: ModelConfig = {
  family: 'qwen2',
  vocabSize: 40,
  hiddenSize: 32,
  intermediateSize: 64,
  numLayers: 2,
  numHeads: 4,
  numKvHeads: 2,
  headDim: 8,
  rmsNormEps: 1e-6,
  ropeTheta: 1e6,
  maxPositionEmbeddings: 160,
  tieWordEmbeddings: false,
  attentionBias: true,
  qkNorm: false,
};

function seeded(seed: number): () => number {
  let s = seed;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Sequences of the given lengths shaped like traces: a prompt (mask 0), answer tokens, a tool output (mask 0). */
function examples(lengths: readonly number[], vocab: number, seed: number): SftExample[] {
  const random = seeded(seed);
  return lengths.map((length) => {
    const inputIds = Int32Array.from({ length }, () => 1 + Math.floor(random() * (vocab - 1)));
    const lossMask = new Uint8Array(length);
    const prompt = Math.max(1, Math.floor(length / 4));
    for (let t = prompt; t < length; t++) lossMask[t] = t % 11 < 8 ? 1 : 0;
    return { inputIds, lossMask };
  });
}

/** The same starting weights for every run: a fresh init, then moved, so no worker could re-create them itself. */
function startingPolicy(config: ModelConfig): TransformerPolicy {
  const policy = initPolicy(config, 3);
  const random = seeded(17);
  for (const variable of policy.trainableVariables()) {
    const noise = Float32Array.from({ length: variable.size }, () => (random() - 0.5) * 0.05);
    variable.assign(tf.add(variable, tf.tensor(noise, variable.shape)));
  }
  return policy;
}

/** The trainer's options with the worker pool's SFT shards (`workers` > 1), or on the main thread (1). */
const trainerOptions = (workers: PolicyWorkers | null): SftTrainerOptions => ({
  learningRate: 3e-3,
  schedule: { kind: 'cosine' as const, totalSteps: 3, warmupSteps: 1, minRatio: 0.1 },
  maxGradNorm: 1,
  padId: 0,
  ...(workers === null ? {} : { workers }),
});

/** The session's pool for `workers` (config `workers`): null for 1, the main thread. */
const pool = (policy: TransformerPolicy, workers: number) =>
  workers > 1 ? new PolicyWorkers(policy, workers, { kind: 'byte' }) : null;

interface RunResult {
  stats: SftStepStats[];
  /** Hugging Face names of the variables, in order. */
  names: string[];
  weights: Float32Array[];
}

async function train(
  config: ModelConfig,
  workers: number,
  batches: SftExample[][],
  /** Runs between steps, e.g. to change the policy's weights outside the trainer. */
  between: (policy: TransformerPolicy) => void = () => {},
): Promise<RunResult> {
  const policy = startingPolicy(config);
  const threads = pool(policy, workers);
  const trainer = new SftTrainer(policy, trainerOptions(threads));
  try {
    const stats: SftStepStats[] = [];
    for (const [i, batch] of batches.entries()) {
      if (i > 0) between(policy);
      stats.push(await trainer.step(batch));
    }
    const variables = policy.trainableVariables();
    return {
      stats,
      names: variables.map((v) => v.name.replace(/^policy\d+\//, '')),
      weights: variables.map((v) => v.dataSync() as Float32Array),
    };
  } finally {
    trainer.dispose();
    await threads?.dispose();
    policy.dispose();
  }
}

const norm = (xs: ArrayLike<number>) => Math.sqrt(Array.from(xs).reduce((s, x) => s + x * x, 0));

function expectSameRun(parallel: RunResult, single: RunResult, start: Float32Array[]): void {
  expect(parallel.stats.map((s) => s.tokens)).toEqual(single.stats.map((s) => s.tokens));
  parallel.stats.forEach((stats, i) => {
    const reference = single.stats[i]!;
    expect(Math.abs(stats.loss - reference.loss)).toBeLessThan(1e-5 * reference.loss);
    expect(Math.abs(stats.gradNorm - reference.gradNorm)).toBeLessThan(1e-5 * reference.gradNorm);
    expect(stats.learningRate).toBe(reference.learningRate);
  });
  const all = (run: RunResult) => run.weights.flatMap((w) => Array.from(w));
  const [parallelAll, singleAll] = [all(parallel), all(single)];
  expect(norm(parallelAll.map((w, j) => w - singleAll[j]!))).toBeLessThanOrEqual(1e-5 * norm(singleAll));
  parallel.weights.forEach((weights, i) => {
    const reference = single.weights[i]!;
    // The runs must have moved every variable, and moved them identically up to float summation order.
    expect(norm(reference.map((w, j) => w - start[i]![j]!))).toBeGreaterThan(0);
    // Except a k_proj bias: adding it shifts every key's score by the same q . b, which the softmax ignores, so
    // its gradient is zero in exact arithmetic and each run's Adam step there is its own float noise scaled up
    // to the learning rate.
    if (single.names[i]!.endsWith('k_proj.bias')) return;
    const difference = norm(weights.map((w, j) => w - reference[j]!));
    expect(difference, single.names[i]).toBeLessThanOrEqual(1e-5 * norm(reference));
  });
}

const startWeights = (config: ModelConfig) => {
  const policy = startingPolicy(config);
  const weights = policy.trainableVariables().map((v) => v.dataSync() as Float32Array);
  policy.dispose();
  return weights;
};

describe('data-parallel SFT (the worker pool, workers)', () => {
  it.each([
    ['tiny model with token shift', TINY],
    ['qwen2-shaped model', QWEN2],
  ] as const)(
    '%s: 3 steps with 2 workers give the weights, loss and grad norm of 1 worker',
    async (_, config) => {
      // Odd batch sizes and very different lengths, so the shards are uneven in rows and in loss tokens.
      const batches = [
        examples([9, 120, 33, 64, 7], config.vocabSize, 1),
        examples([150, 12, 40], config.vocabSize, 2),
        examples([20, 21, 22, 90, 5, 60, 61], config.vocabSize, 3),
      ];
      const single = await train(config, 1, batches);
      const parallel = await train(config, 2, batches);
      expectSameRun(parallel, single, startWeights(config));
    },
  );

  it('3 workers and a one-sequence batch (fewer shards than workers) still match 1 worker', async () => {
    const batches = [
      examples([40, 9, 77, 31, 12, 100, 64, 18], TINY.vocabSize, 4),
      examples([55], TINY.vocabSize, 5),
      examples([30, 31], TINY.vocabSize, 6),
    ];
    const single = await train(TINY, 1, batches);
    const parallel = await train(TINY, 3, batches);
    expectSameRun(parallel, single, startWeights(TINY));
  });

  it('weights changed outside the trainer between steps reach the replicas (the demo restores SFT weights)', async () => {
    const batches = [
      examples([30, 70, 12, 50, 44], TINY.vocabSize, 11),
      examples([25, 90, 60], TINY.vocabSize, 12),
      examples([15, 35, 55, 75, 95], TINY.vocabSize, 13),
    ];
    const shrink = (policy: TransformerPolicy) => {
      for (const variable of policy.trainableVariables()) variable.assign(tf.mul(variable, 0.9));
    };
    const single = await train(TINY, 1, batches, shrink);
    const parallel = await train(TINY, 2, batches, shrink);
    expectSameRun(parallel, single, startWeights(TINY));
  });

  it('keeps the tensor count flat across steps', async () => {
    const policy = startingPolicy(TINY);
    const threads = pool(policy, 2);
    const trainer = new SftTrainer(policy, trainerOptions(threads));
    const batch = examples([30, 50, 70, 20], TINY.vocabSize, 7);
    await trainer.step(batch);
    const after1 = tf.memory().numTensors;
    await trainer.step(batch);
    await trainer.step(batch);
    expect(tf.memory().numTensors).toBe(after1);
    trainer.dispose();
    await threads?.dispose();
    policy.dispose();
  });

  it("a worker's error rejects the step, naming the worker; the next step starts fresh workers", async () => {
    const policy = startingPolicy(TINY);
    const threads = pool(policy, 2);
    const trainer = new SftTrainer(policy, trainerOptions(threads));
    try {
      // Shards are cut from the length-sorted batch and worker 2 gets the longer one: a sequence beyond the model's
      // positions fails there while worker 1's shard is fine.
      const tooLong = examples([10, 12, TINY.maxPositionEmbeddings + 20], TINY.vocabSize, 8);
      await expect(trainer.step(tooLong)).rejects.toThrow(
        /policy worker thread 2 of 2 failed: .*exceed the model's 160 positions/,
      );
      expect(trainer.steps).toBe(0);
      const stats = await trainer.step(examples([30, 40, 50], TINY.vocabSize, 9));
      expect(Number.isFinite(stats.loss)).toBe(true);
      expect(trainer.steps).toBe(1);
    } finally {
      trainer.dispose();
      await threads?.dispose();
      policy.dispose();
    }
  });

  // Threads counted in /proc/self/task (Linux).
  it.skipIf(process.platform !== 'linux')("the pool's dispose terminates the worker threads", async () => {
    const threads = () => readdirSync('/proc/self/task').length;
    const before = threads();
    const policy = startingPolicy(TINY);
    const workers = pool(policy, 3)!;
    const trainer = new SftTrainer(policy, trainerOptions(workers));
    await trainer.step(examples([30, 40, 50, 60], TINY.vocabSize, 10));
    expect(threads()).toBeGreaterThanOrEqual(before + 3);
    trainer.dispose();
    await workers.dispose();
    expect(threads()).toBe(before);
    policy.dispose();
  });

  it('workers: default the cores available, a positive integer, named in the error otherwise', () => {
    expect(parseConfig('seed: 1', 'test.yaml').workers).toBe(availableParallelism());
    expect(parseConfig('workers: 2', 'test.yaml').workers).toBe(2);
    expect(() => parseConfig('workers: 0', 'test.yaml')).toThrow(/workers/);
    expect(() => parseConfig('workers: 1.5', 'test.yaml')).toThrow(/workers/);
  });

  it('balancedShards: contiguous runs of the length-sorted batch with the smallest largest padded size', () => {
    const lengths = [100, 10, 10, 10, 10];
    expect(balancedShards(lengths, (l) => l, 2)).toEqual([[10, 10, 10, 10], [100]]);
    expect(balancedShards([5, 6, 7, 8], (l) => l, 2)).toEqual([
      [5, 6],
      [7, 8],
    ]);
    expect(balancedShards([3, 1], (l) => l, 4)).toEqual([[1], [3]]);
    const many = [9, 3, 14, 2, 7, 7, 30, 1, 12];
    const shards = balancedShards(many, (l) => l, 3);
    expect(shards).toHaveLength(3);
    expect(shards.flat().sort((a, b) => a - b)).toEqual([...many].sort((a, b) => a - b));
  });
});
