import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BackendChoice, initBackend } from '@taorl/grpo';
import * as tf from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { causalMask, decoderHidden, headMatrix, type LayerCache } from '../src/decoder.js';
import { loadCheckpoint } from '../src/files/checkpoint.js';
import { loadPolicy } from '../src/files/folder-policy.js';
import { ropeTables } from '../src/rope.js';
import { weightsFromTensors, weightVariables } from '../src/weights.js';
import {
  hfConfigJson,
  QWEN2_TEST,
  QWEN3_TEST,
  randomTensors,
  writeFolder,
} from './support/checkpoint-files.js';
import { type ReferenceConfig, referenceLogits } from './support/reference64.js';

const root = mkdtempSync(join(tmpdir(), 'taorl-decoder-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const families: [string, 'qwen2' | 'qwen3', ReferenceConfig][] = [
  ['qwen3 (q/k norm, explicit head_dim, GQA 4:2, untied)', 'qwen3', QWEN3_TEST],
  ['qwen2 (q/k/v bias, GQA 3:1, tied, theta 1e6)', 'qwen2', QWEN2_TEST],
];

function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]! - b[i]!));
  return m;
}

describe.each(['wasm', 'cpu'] as BackendChoice[])('decoder on %s', (backend) => {
  beforeAll(async () => {
    await initBackend({ prefer: backend });
  });

  describe.each(families)('%s', (_label, family, config) => {
    const dir = join(root, `${backend}-${family}`);
    beforeAll(() => writeFolder(dir, hfConfigJson(config, family), [randomTensors(config, 7)]));

    it('logits at several positions equal a float64 recomputation', async () => {
      const policy = await loadPolicy(dir);
      const checkpoint = await loadCheckpoint(dir);
      const sequences = [
        [3, 17, 5, 0, 22, 9, 11, 4, 1, 2, 8, 19],
        [1, 1, 2, 3, 5, 8, 13, 21, 0, 7, 6, 28],
      ];
      const tokens = tf.tensor2d(sequences.flat(), [2, 12], 'int32');
      const logits = policy.logits(tokens).arraySync();
      sequences.forEach((sequence, b) => {
        const reference = referenceLogits(config, checkpoint.tensors, sequence);
        for (const t of [0, 1, 5, 11]) {
          expect(reference[t]!.length).toBe(config.vocabSize);
          expect(maxAbsDiff(logits[b]![t]!, reference[t]!)).toBeLessThan(2e-5);
        }
        // The logits are not trivially small: the comparison above has something to compare.
        expect(Math.max(...reference[11]!.map(Math.abs))).toBeGreaterThan(0.3);
      });
      tokens.dispose();
      policy.dispose();
    });

    it('KV-cache incremental logits equal the full forward', async () => {
      const { config: modelConfig, tensors } = await loadCheckpoint(dir);
      const before = tf.memory().numTensors;
      const weights = weightsFromTensors(modelConfig, tensors);
      const sequence = [4, 9, 2, 0, 15, 7, 3, 11, 6, 1];
      const prefix = 4;
      const full = tf.tidy(() => {
        const t = sequence.length;
        const rope = ropeTables(
          Int32Array.from(sequence.keys()),
          [1, t],
          modelConfig.headDim,
          modelConfig.ropeTheta,
        );
        const input = tf.tensor2d(sequence, [1, t], 'int32');
        const { hidden } = decoderHidden(weights, modelConfig, input, { rope, mask: causalMask(t, t) });
        return tf.matMul(hidden, headMatrix(weights)).arraySync() as number[][];
      });
      let cache: LayerCache[] | undefined;
      const incremental: number[][] = [];
      for (let start = 0; start < sequence.length; ) {
        const end = start === 0 ? prefix : start + 1;
        const chunk = sequence.slice(start, end);
        const past = cache;
        const step = tf.tidy(() => {
          const positions = Int32Array.from(chunk, (_, i) => start + i);
          const rope = ropeTables(positions, [1, chunk.length], modelConfig.headDim, modelConfig.ropeTheta);
          const input = tf.tensor2d(chunk, [1, chunk.length], 'int32');
          const mask = causalMask(chunk.length, end);
          const out = decoderHidden(
            weights,
            modelConfig,
            input,
            past ? { rope, mask, cache: past } : { rope, mask, collectCache: true },
          );
          return [
            tf.matMul(out.hidden, headMatrix(weights)),
            ...out.cache.flatMap((c) => [c.keysT, c.values]),
          ];
        });
        const [logits, ...flat] = step;
        incremental.push(...(logits!.arraySync() as number[][]));
        if (past) tf.dispose(past.flatMap((c) => [c.keysT, c.values]));
        cache = Array.from({ length: flat.length / 2 }, (_, i) => ({
          keysT: flat[2 * i] as tf.Tensor3D,
          values: flat[2 * i + 1] as tf.Tensor3D,
        }));
        logits!.dispose();
        start = end;
      }
      tf.dispose(cache!.flatMap((c) => [c.keysT, c.values]));
      expect(incremental).toHaveLength(sequence.length);
      for (let t = 0; t < sequence.length; t++)
        expect(maxAbsDiff(incremental[t]!, full[t]!)).toBeLessThan(1e-5);
      tf.dispose(weightVariables(weights));
      expect(tf.memory().numTensors).toBe(before);
    });
  });
});
