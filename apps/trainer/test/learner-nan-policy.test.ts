import type { SftExample, Tokenizer, Trajectory } from '@taorl/data';
import { initBackend } from '@taorl/grpo';
import { grpoUpdate, type TransformerPolicy, tinyQwen3Config } from '@taorl/model';
import { initPolicy } from '@taorl/model/node';
import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { SftTrainer } from '../src/sft/sft-trainer.js';

// The two learners share one NaN/Inf policy: a step whose loss or gradient norm is not finite is refused, the
// weights and the optimizer state stay as they were, and the step says why (SFT: its stats; RL: the update's
// skippedUpdates, which the metrics line carries).

beforeAll(async () => {
  await initBackend({ prefer: 'wasm' });
});

const VOCAB = 48;
const config = tinyQwen3Config({ vocabSize: VOCAB, maxPositionEmbeddings: 64, tokenShift: true });
/** Which value shows the NaN first differs (RL's clipped ratio can keep the loss finite); the refusal does not. */
const refusal = /^non-finite (loss|gradient norm) \(NaN\); weights and optimizer state left unchanged$/;

/** The tiny policy, with one weight matrix poisoned by NaN when asked: every loss it computes is then NaN. */
function policy(poisoned: boolean): TransformerPolicy {
  const result = initPolicy(config, 3);
  if (poisoned) {
    const [first] = result.trainableVariables();
    first!.assign(tf.fill(first!.shape, Number.NaN));
  }
  return result;
}

const weightBytes = (p: TransformerPolicy): Buffer[] =>
  p.trainableVariables().map((v) => Buffer.from((v.dataSync() as Float32Array).buffer.slice(0)));

const ids = (length: number, offset: number) =>
  Int32Array.from({ length }, (_, i) => 1 + ((i * 7 + offset) % (VOCAB - 1)));

const sftExamples: SftExample[] = [10, 14].map((length, row) => {
  const lossMask = new Uint8Array(length);
  lossMask.fill(1, 3);
  return { inputIds: ids(length, row), lossMask };
});

function trajectory(row: number): Trajectory {
  const response = 8 + 2 * row;
  return {
    groupId: 'g',
    promptIds: ids(4, row),
    responseIds: ids(response, row + 5),
    lossMask: new Uint8Array(response).fill(1),
    oldLogProbs: new Float32Array(response).fill(-Math.log(VOCAB)),
    entropies: new Float32Array(response),
    toolCalls: [],
    reward: row,
    correct: row === 1,
    truncated: false,
    text: '',
  };
}

async function sftStep(poisoned: boolean) {
  const p = policy(poisoned);
  const trainer = new SftTrainer(p, {
    learningRate: 1e-3,
    schedule: { kind: 'constant' },
    maxGradNorm: 1,
    padId: 0,
  });
  const before = weightBytes(p);
  const stats = await trainer.step(sftExamples);
  const result = {
    stats,
    steps: trainer.steps,
    unchanged: weightBytes(p).every((w, i) => w.equals(before[i]!)),
  };
  await trainer.dispose();
  p.dispose();
  return result;
}

async function rlUpdate(poisoned: boolean) {
  const p = policy(poisoned);
  const { update, updater } = grpoUpdate(p, { padTokenId: 0 } as Tokenizer, {
    learningRate: 1e-3,
    maxGradNorm: 1,
    loss: {},
    microBatchRows: 2,
    temperature: 1,
  });
  const before = weightBytes(p);
  const batch = [trajectory(0), trajectory(1)];
  const stats = await update(batch, [
    new Float32Array(batch[0]!.responseIds.length).fill(-0.5),
    new Float32Array(batch[1]!.responseIds.length).fill(0.5),
  ]);
  const result = {
    stats,
    steps: updater.step,
    unchanged: weightBytes(p).every((w, i) => w.equals(before[i]!)),
  };
  updater.dispose();
  p.dispose();
  return result;
}

describe('one NaN policy for the SFT and RL learners', () => {
  it('refuses a non-finite step, leaves the weights as they were and reports why, in both learners', async () => {
    const sft = await sftStep(true);
    expect(sft.stats.skipped).toBe(true);
    expect(sft.stats.skipReason).toMatch(refusal);
    expect([sft.steps, sft.unchanged]).toEqual([0, true]);

    const rl = await rlUpdate(true);
    expect(rl.stats.skippedUpdates).toHaveLength(1);
    expect(rl.stats.skippedUpdates![0]).toMatch(refusal);
    expect([rl.steps, rl.unchanged]).toEqual([0, true]);
    // The refused step's values are reported as they were, as SFT's are (RL wrote 0s, values never computed).
    expect([rl.stats.loss, rl.stats.gradNorm].some(Number.isNaN)).toBe(true);
    expect(sft.stats.loss).toBeNaN();
  });

  it('takes a finite step in both learners and reports no refusal', async () => {
    const sft = await sftStep(false);
    expect(sft.stats.skipped).toBe(false);
    expect(sft.stats.skipReason).toBeUndefined();
    expect([sft.steps, sft.unchanged]).toEqual([1, false]);

    const rl = await rlUpdate(false);
    expect(rl.stats.skippedUpdates).toBeUndefined();
    expect([rl.steps, rl.unchanged]).toEqual([1, false]);
  });
});
