import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initBackend } from '@taorl/grpo';
import * as tf from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DecoderWeights } from '../src/decoder.js';
import { loadCheckpoint } from '../src/files/checkpoint.js';
import { loadPolicy } from '../src/files/folder-policy.js';
import { batchMatMul, channelProduct } from '../src/products.js';
import { tensorsFromWeights } from '../src/weights.js';
import {
  hfConfigJson,
  QWEN2_TEST,
  QWEN3_TEST,
  randomTensors,
  writeFolder,
} from './support/checkpoint-files.js';
import { type ReferenceConfig, referenceLogits } from './support/reference64.js';

const root = mkdtempSync(join(tmpdir(), 'taorl-gradient-'));
beforeAll(async () => {
  await initBackend({ prefer: 'wasm' });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function seeded(seed: number): () => number {
  let s = seed;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32 - 0.5;
  };
}

describe('gradients', () => {
  it.each([
    ['qwen3', QWEN3_TEST],
    ['qwen2', QWEN2_TEST],
  ] as const)(
    '%s: d loss / d weights equal central differences of the float64 reference',
    async (family, config) => {
      const dir = join(root, family);
      writeFolder(dir, hfConfigJson(config as ReferenceConfig, family), [randomTensors(config, 13)]);
      const policy = await loadPolicy(dir);
      const { tensors } = await loadCheckpoint(dir);
      const sequences = [
        [2, 7, 1, 8, 2, 8, 1, 8],
        [3, 1, 4, 1, 5, 9, 2, 6],
      ];
      const r = seeded(5);
      const probe = sequences.map((s) => s.map(() => Array.from({ length: config.vocabSize }, r)));
      // loss = sum logits * probe: every logit contributes, with a different weight.
      const loss64 = (weights: Map<string, Float32Array>) =>
        sequences.reduce(
          (sum, s, b) =>
            sum +
            referenceLogits(config, weights, s).reduce(
              (acc, row, t) => acc + row.reduce((a, v, k) => a + v * probe[b]![t]![k]!, 0),
              0,
            ),
          0,
        );
      const tokens = tf.tensor2d(sequences.flat(), [2, 8], 'int32');
      const probeTensor = tf.tensor3d(probe);
      const { grads } = tf.variableGrads(() => tf.sum(tf.mul(policy.logits(tokens), probeTensor)));
      // The gradients in Hugging Face layout: reuse the variable -> tensor mapping with gradients in place of weights.
      const weights = (policy as unknown as { weights: DecoderWeights }).weights;
      const swap = <T>(v: T) => grads[(v as unknown as tf.Variable).name] as unknown as T;
      const gradWeights: DecoderWeights = {
        embedding: swap(weights.embedding),
        norm: swap(weights.norm),
        layers: weights.layers.map(
          (l) => Object.fromEntries(Object.entries(l).map(([k, v]) => [k, swap(v)])) as typeof l,
        ),
        ...(weights.lmHead ? { lmHead: swap(weights.lmHead) } : {}),
      };
      const hfGrads = tensorsFromWeights(policy.config, gradWeights);
      const pick = seeded(9);
      const checked = [...tensors.keys()];
      for (const name of checked) {
        const original = tensors.get(name)!;
        for (let n = 0; n < 2; n++) {
          const index = Math.floor((pick() + 0.5) * original.length);
          const perturbed = (delta: number) => {
            const copy = new Map(tensors);
            const data = Float32Array.from(original);
            data[index] = original[index]! + delta;
            copy.set(name, data);
            return { weights: copy, value: data[index]! };
          };
          const plus = perturbed(1e-3);
          const minus = perturbed(-1e-3);
          const numeric = (loss64(plus.weights) - loss64(minus.weights)) / (plus.value - minus.value);
          const analytic = hfGrads.get(name)![index]!;
          expect(Math.abs(analytic - numeric), `${name}[${index}]`).toBeLessThan(
            2e-3 + 2e-3 * Math.abs(numeric),
          );
        }
      }
      tf.dispose([tokens, probeTensor, ...Object.values(grads)]);
      policy.dispose();
    },
  );

  // channelProduct in the [n, m, k] x [n, k, p] layout of a batched matMul, so one reference serves both.
  const viaChannels = (a: tf.Tensor3D, b: tf.Tensor3D) =>
    tf.transpose(
      channelProduct(tf.transpose(a, [1, 0, 2]), tf.transpose(b, [1, 0, 2])),
      [1, 0, 2],
    ) as tf.Tensor3D;

  it.each([
    ['batchMatMul (KV-cache decoding, non-wasm backends)', batchMatMul],
    ['channelProduct (depthwise convolution, wasm training)', viaChannels],
  ])('%s: values A B and gradients dA = G B^T, dB = A^T G equal float64 sums', (_name, product) => {
    const [n, m, k, p] = [3, 40, 30, 20];
    const r = seeded(3);
    const a = Array.from({ length: n }, () => Array.from({ length: m }, () => Array.from({ length: k }, r)));
    const b = Array.from({ length: n }, () => Array.from({ length: k }, () => Array.from({ length: p }, r)));
    const g = Array.from({ length: n }, () => Array.from({ length: m }, () => Array.from({ length: p }, r)));
    const [ta, tb, tg] = [tf.tensor3d(a), tf.tensor3d(b), tf.tensor3d(g)];
    const value = product(ta, tb);
    const y = value.arraySync();
    const [da, db] = tf.grads((x: tf.Tensor, w: tf.Tensor) =>
      tf.sum(tf.mul(product(x as tf.Tensor3D, w as tf.Tensor3D), tg)),
    )([ta, tb]);
    const dA = da!.arraySync() as number[][][];
    const dB = db!.arraySync() as number[][][];
    let worst = 0;
    for (let s = 0; s < n; s++) {
      for (let i = 0; i < m; i++)
        for (let j = 0; j < p; j++) {
          const expected = a[s]![i]!.reduce((acc, av, c) => acc + av * b[s]![c]![j]!, 0);
          worst = Math.max(worst, Math.abs(y[s]![i]![j]! - expected));
        }
      for (let i = 0; i < m; i++)
        for (let j = 0; j < k; j++) {
          const expected = g[s]![i]!.reduce((acc, gv, c) => acc + gv * b[s]![j]![c]!, 0);
          worst = Math.max(worst, Math.abs(dA[s]![i]![j]! - expected));
        }
      for (let i = 0; i < k; i++)
        for (let j = 0; j < p; j++) {
          const expected = a[s]!.reduce((acc, row, c) => acc + row[i]! * g[s]![c]![j]!, 0);
          worst = Math.max(worst, Math.abs(dB[s]![i]![j]! - expected));
        }
    }
    expect(worst).toBeLessThan(1e-5);
    tf.dispose([ta, tb, tg, value, da!, db!]);
  });
});
