import { GrpoUpdater, initBackend, type UpdateBatch, type UpdateReport } from '@taorl/grpo';
import { TransformerPolicy, tinyQwen3Config } from '@taorl/model';
import { initPolicy } from '@taorl/model/node';
import { beforeAll, describe, expect, it } from 'vitest';
import { PolicyWorkers } from '../src/workers/policy-workers.js';

// The RL update's micro-batch gradients on the rollout workers (GrpoUpdater's microBatchGradients): the same
// update, bit for bit, as on the main thread, over several optimizer steps (the replicas must follow the weights).

beforeAll(async () => {
  await initBackend({ prefer: 'wasm' });
});

const VOCAB = 48;
const [ROWS, COLUMNS] = [5, 40];
const start = initPolicy(
  tinyQwen3Config({ vocabSize: VOCAB, maxPositionEmbeddings: 64, tokenShift: true }),
  3,
);

function seeded(seed: number): () => number {
  let s = seed;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/**
 * Rows of a prompt and a response of different lengths, right-padded; advantages of both signs; rollout log-probs
 * around the tiny model's (about -ln 48) so that some ratios leave the clip range.
 */
function rlBatch(): UpdateBatch {
  const random = seeded(11);
  const size = ROWS * COLUMNS;
  const tokens = Int32Array.from({ length: size }, () => 1 + Math.floor(random() * (VOCAB - 1)));
  const lossMask = new Uint8Array(size);
  const advantages = new Float32Array(size);
  const oldLogProbs = new Float32Array(size);
  for (let row = 0; row < ROWS; row++) {
    const length = COLUMNS - 6 * row;
    const advantage = row % 2 === 0 ? 0.8 + row / 10 : -0.6 - row / 10;
    for (let column = length; column < COLUMNS; column++) tokens[row * COLUMNS + column] = 0;
    for (let column = 8; column < length; column++) {
      const index = row * COLUMNS + column;
      lossMask[index] = 1;
      advantages[index] = advantage;
      oldLogProbs[index] = -Math.log(VOCAB) + (random() - 0.5);
    }
  }
  return { rows: ROWS, columns: COLUMNS, tokens, lossMask, advantages, oldLogProbs };
}

interface Run {
  updater: GrpoUpdater;
  policy: TransformerPolicy;
  weights: () => Buffer[];
}

/** An updater over a copy of the starting policy; 2 epochs of 2 mini-batches, micro-batches of 2 rows. */
function learner(
  workers: (policy: TransformerPolicy) => PolicyWorkers | null,
): Run & { pool: PolicyWorkers | null } {
  const policy = new TransformerPolicy(start.toCheckpoint());
  const pool = workers(policy);
  const updater = new GrpoUpdater({
    model: (tokens) => policy.logits(tokens),
    variables: policy.trainableVariables(),
    learningRate: 1e-2,
    temperature: 0.7,
    loss: { name: 'vanilla', clipLow: 0.2, clipHigh: 0.28 },
    ppoEpochs: 2,
    miniBatchRows: 4,
    microBatchRows: 2,
    ...(pool === null
      ? {}
      : { microBatchGradients: (micros, settings) => pool.microBatchGradients(micros, settings) }),
  });
  const weights = () =>
    policy.trainableVariables().map((variable) => Buffer.from((variable.dataSync() as Float32Array).buffer));
  return { updater, policy, weights, pool };
}

describe('the RL update on rollout workers', () => {
  it('gives the report and weights of the main thread, bit for bit, and a failing worker applies nothing', async () => {
    const batch = rlBatch();
    const single = learner(() => null);
    const parallel = learner((policy) => new PolicyWorkers(policy, 2, { kind: 'byte' }));
    const pool = parallel.pool!;
    try {
      const expected: UpdateReport = await single.updater.update(batch);
      // Not trivial: four steps that moved the weights, with ratios outside the clip range.
      expect(expected.steps).toHaveLength(4);
      expect(expected.skippedSteps).toBe(0);
      expect(expected.steps.some((step) => (step.losses.clipFractionHigh ?? 0) > 0)).toBe(true);
      expect(single.weights()).not.toEqual(parallel.weights());

      // Thread 2's first micro-batch fails: the update rejects by name and cause before any optimizer step.
      const before = parallel.weights();
      pool.injectFault(1, 'throw');
      await expect(parallel.updater.update(batch)).rejects.toThrow(
        'policy worker thread 2 of 2 failed: injected fault (test hook)',
      );
      expect(parallel.updater.step).toBe(0);
      expect(parallel.weights()).toEqual(before);

      // Fresh workers from the current weights; the whole update equals the main thread's.
      const report = await parallel.updater.update(batch);
      expect(report).toEqual(expected);
      expect(parallel.weights()).toEqual(single.weights());
    } finally {
      await pool.dispose();
      for (const run of [single, parallel]) {
        run.updater.dispose();
        run.policy.dispose();
      }
    }
  }, 120_000);
});
