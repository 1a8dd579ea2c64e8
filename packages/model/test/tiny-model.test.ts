import { initBackend } from '@taorl/grpo';
import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { tinyQwen3Config } from '../src/config.js';
import { createTinyPolicy } from '../src/files/folder-policy.js';

beforeAll(async () => {
  await initBackend({ prefer: 'wasm' });
});

describe('the embedded tiny model', () => {
  it('is a Qwen3-shaped decoder of about half a million parameters for the given vocabulary', () => {
    const config = tinyQwen3Config({ vocabSize: 260 });
    expect(config).toMatchObject({ family: 'qwen3', qkNorm: true, tieWordEmbeddings: true, numKvHeads: 2 });
    const policy = createTinyPolicy({ vocabSize: 260, seed: 1 });
    const parameters = policy.trainableVariables().reduce((n, v) => n + v.size, 0);
    const { hiddenSize: d, intermediateSize: m, numLayers: layers, headDim } = config;
    const perLayer = 2 * d + d * (4 + 2 + 2) * headDim + 4 * headDim * d + 2 * headDim + 3 * d * m;
    expect(parameters).toBe(260 * d + layers * perLayer + d);
    expect(parameters).toBeGreaterThan(300_000);
    expect(parameters).toBeLessThan(1_000_000);
    // Token shift adds one more [vocab, d] table: embeddings of each position's previous token.
    const shifted = createTinyPolicy({ vocabSize: 260, seed: 1, tokenShift: true });
    expect(shifted.trainableVariables().reduce((n, v) => n + v.size, 0)).toBe(parameters + 260 * d);
    policy.dispose();
    shifted.dispose();
  });

  it('initialises reproducibly from a seed', () => {
    const a = createTinyPolicy({ vocabSize: 50, seed: 3 });
    const b = createTinyPolicy({ vocabSize: 50, seed: 3 });
    const c = createTinyPolicy({ vocabSize: 50, seed: 4 });
    const first = (p: typeof a) => Array.from(p.trainableVariables()[0]!.dataSync());
    expect(first(b)).toEqual(first(a));
    expect(first(c)).not.toEqual(first(a));
    for (const p of [a, b, c]) p.dispose();
  });

  it('learns to copy: a few Adam steps on a repeated pattern drive the loss down, with flat memory', async () => {
    const policy = createTinyPolicy({ vocabSize: 40, seed: 2 });
    const optimizer = tf.train.adam(3e-3);
    const pattern = [5, 17, 3, 29, 11, 23, 7, 31];
    const sequence = [...pattern, ...pattern, ...pattern];
    const tokens = tf.tensor2d([sequence.slice(0, -1)], [1, sequence.length - 1], 'int32');
    const targets = tf.oneHot(tf.tensor1d(sequence.slice(1), 'int32'), 40, 1, 0, 'int32');
    const step = () =>
      optimizer.minimize(
        () =>
          tf.losses.softmaxCrossEntropy(tf.cast(targets, 'float32'), tf.squeeze(policy.logits(tokens), [0])),
        true,
        policy.trainableVariables(),
      )!;
    const firstLoss = step();
    const initial = firstLoss.dataSync()[0]!;
    firstLoss.dispose();
    const count = tf.memory().numTensors;
    let last = initial;
    for (let i = 0; i < 40; i++) {
      const loss = step();
      last = loss.dataSync()[0]!;
      loss.dispose();
    }
    expect(tf.memory().numTensors).toBe(count);
    expect(initial).toBeGreaterThan(Math.log(40) - 0.2);
    expect(last).toBeLessThan(initial / 3);
    const [out] = await policy.generate([Int32Array.from(sequence.slice(0, 12))], {
      maxNewTokens: 8,
      temperature: 0,
    });
    expect(Array.from(out!.tokens)).toEqual(sequence.slice(12, 20));
    tf.dispose([tokens, targets]);
    optimizer.dispose();
    policy.dispose();
  });
});
