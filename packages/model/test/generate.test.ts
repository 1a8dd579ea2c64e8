import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initBackend } from '@taorl/grpo';
import * as tf from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTinyPolicy, loadPolicy } from '../src/files/folder-policy.js';
import type { TransformerPolicy } from '../src/transformer-policy.js';
import {
  hfConfigJson,
  QWEN2_TEST,
  QWEN3_TEST,
  randomTensors,
  writeFolder,
} from './support/checkpoint-files.js';

const root = mkdtempSync(join(tmpdir(), 'taorl-generate-'));
let qwen3: TransformerPolicy;
let qwen2: TransformerPolicy;
let shifted: TransformerPolicy;

beforeAll(async () => {
  await initBackend({ prefer: 'wasm' });
  writeFolder(join(root, 'qwen3'), hfConfigJson(QWEN3_TEST, 'qwen3'), [randomTensors(QWEN3_TEST, 3)]);
  writeFolder(join(root, 'qwen2'), hfConfigJson(QWEN2_TEST, 'qwen2'), [randomTensors(QWEN2_TEST, 5)]);
  qwen3 = await loadPolicy(join(root, 'qwen3'));
  qwen2 = await loadPolicy(join(root, 'qwen2'));
  // Token shift with weights far from their small initialisation, so a wrong previous token in the cached path
  // moves the log-probs by much more than the 1e-5 tolerance.
  shifted = createTinyPolicy({ vocabSize: 12, maxPositionEmbeddings: 64, tokenShift: true, seed: 4 });
  shifted.trainableVariables().forEach((v, i) => {
    v.assign(tf.tidy(() => tf.randomNormal(v.shape, 0, 0.5, 'float32', 100 + i)));
  });
});
afterAll(() => {
  qwen3.dispose();
  qwen2.dispose();
  shifted.dispose();
  rmSync(root, { recursive: true, force: true });
});

const prompts = [
  Int32Array.from([5, 1, 9, 2, 7]),
  Int32Array.from([3]),
  Int32Array.from([8, 8, 0, 4, 6, 2, 1, 1]),
];

/** log softmax(logits / temperature) and entropy recomputed by a training-style full forward of one sequence. */
function recompute(
  policy: TransformerPolicy,
  prompt: Int32Array,
  generated: Int32Array,
  temperature: number,
) {
  const all = Int32Array.from([...prompt, ...generated]);
  return tf.tidy(() => {
    const logits = tf.div(policy.logits(tf.tensor2d(all, [1, all.length], 'int32')), temperature);
    const logProbs = (tf.logSoftmax(logits) as tf.Tensor3D).arraySync()[0]!;
    return Array.from(generated, (id, k) => {
      const row = logProbs[prompt.length - 1 + k]!;
      return { logProb: row[id]!, entropy: -row.reduce((a, lp) => a + Math.exp(lp) * lp, 0) };
    });
  });
}

describe('generate', () => {
  it.each([
    ['qwen3', () => qwen3],
    ['qwen2', () => qwen2],
    ['tiny qwen3 with token shift', () => shifted],
  ])(
    '%s: log-probs and entropies recorded while sampling equal the training recomputation (1e-5)',
    async (_n, get) => {
      const policy = get();
      for (const sampling of [
        { maxNewTokens: 12, temperature: 0.7, seed: 11 },
        { maxNewTokens: 12, temperature: 1.3, topK: 5, topP: 0.9, seed: 12 },
      ]) {
        const out = await policy.generate(prompts, sampling);
        out.forEach((sequence, i) => {
          expect(sequence.tokens.length).toBe(12);
          const expected = recompute(policy, prompts[i]!, sequence.tokens, sampling.temperature);
          expected.forEach((e, k) => {
            expect(Math.abs(sequence.logProbs[k]! - e.logProb)).toBeLessThan(1e-5);
            expect(Math.abs(sequence.entropies[k]! - e.entropy)).toBeLessThan(1e-5);
          });
        });
      }
    },
  );

  it('greedy generation is deterministic and the batch does not change any sequence (padding is invisible)', async () => {
    const sampling = { maxNewTokens: 10, temperature: 0 };
    const first = await qwen3.generate(prompts, sampling);
    const second = await qwen3.generate(prompts, sampling);
    const alone = await Promise.all(prompts.map((p) => qwen3.generate([p], sampling)));
    first.forEach((sequence, i) => {
      expect(Array.from(second[i]!.tokens)).toEqual(Array.from(sequence.tokens));
      expect(Array.from(alone[i]![0]!.tokens)).toEqual(Array.from(sequence.tokens));
      // Greedy picks the argmax of the recomputed distribution at every step.
      const all = Int32Array.from([...prompts[i]!, ...sequence.tokens]);
      const logits = tf.tidy(() =>
        tf.argMax(qwen3.logits(tf.tensor2d(all, [1, all.length], 'int32')), -1).arraySync(),
      );
      const argmax = (logits as number[][])[0]!.slice(prompts[i]!.length - 1, -1);
      expect(Array.from(sequence.tokens)).toEqual(argmax);
      expect(sequence.finishReason).toBe('length');
    });
    // The three greedy continuations differ, so the comparisons above are not of constant sequences.
    expect(new Set(first.map((s) => s.tokens.join(','))).size).toBeGreaterThan(1);
  });

  it('top-k 1 equals greedy; a seed reproduces a sample; different seeds differ', async () => {
    const greedy = await qwen2.generate(prompts, { maxNewTokens: 8, temperature: 0 });
    const topOne = await qwen2.generate(prompts, { maxNewTokens: 8, temperature: 1, topK: 1, seed: 4 });
    expect(topOne.map((s) => Array.from(s.tokens))).toEqual(greedy.map((s) => Array.from(s.tokens)));
    const a = await qwen2.generate(prompts, { maxNewTokens: 16, temperature: 1, seed: 99 });
    const b = await qwen2.generate(prompts, { maxNewTokens: 16, temperature: 1, seed: 99 });
    const c = await qwen2.generate(prompts, { maxNewTokens: 16, temperature: 1, seed: 100 });
    expect(b.map((s) => s.tokens.join())).toEqual(a.map((s) => s.tokens.join()));
    expect(c.map((s) => s.tokens.join())).not.toEqual(a.map((s) => s.tokens.join()));
  });

  it('stops each sequence on its own: stop token, stop string, max new tokens', async () => {
    const greedy = await qwen3.generate(prompts, { maxNewTokens: 10, temperature: 0 });
    const stopId = greedy[0]!.tokens[2]!;
    const decode = (ids: Int32Array) => Array.from(ids, (id) => String.fromCharCode(97 + (id % 26))).join('');
    const second = decode(greedy[1]!.tokens);
    const stopString = second.slice(3, 5);
    const out = await qwen3.generate(prompts, {
      maxNewTokens: 10,
      temperature: 0,
      stopTokenIds: [stopId],
      stopStrings: [stopString],
      decode,
    });
    out.forEach((sequence, i) => {
      const ids = Array.from(greedy[i]!.tokens);
      const text = decode(greedy[i]!.tokens);
      // Where each sequence must end: the first stop id, or the first token completing the stop string.
      const byId = ids.indexOf(stopId) + 1 || Number.POSITIVE_INFINITY;
      const byString = (() => {
        for (let n = 1; n <= ids.length; n++) if (text.slice(0, n).includes(stopString)) return n;
        return Number.POSITIVE_INFINITY;
      })();
      const end = Math.min(byId, byString, 10);
      expect(Array.from(sequence.tokens)).toEqual(ids.slice(0, end));
      expect(sequence.logProbs.length).toBe(end);
      expect(sequence.finishReason).toBe(
        end === byId ? 'stop_token' : end === byString ? 'stop_string' : 'length',
      );
      if (sequence.finishReason === 'stop_string') expect(sequence.stopString).toBe(stopString);
    });
    expect(out[0]!.finishReason).toBe('stop_token');
    expect(out[0]!.tokens.length).toBeLessThanOrEqual(3);
  });

  it('continues from a longer prefix (a multi-turn rollout after a tool observation)', async () => {
    const first = await qwen3.generate([prompts[0]!], { maxNewTokens: 4, temperature: 0 });
    const observation = [1, 2, 3];
    const prefix = Int32Array.from([...prompts[0]!, ...first[0]!.tokens, ...observation]);
    const resumed = await qwen3.generate([prefix], { maxNewTokens: 5, temperature: 0.9, seed: 1 });
    const expected = recompute(qwen3, prefix, resumed[0]!.tokens, 0.9);
    for (const [k, e] of expected.entries())
      expect(Math.abs(resumed[0]!.logProbs[k]! - e.logProb)).toBeLessThan(1e-5);
  });

  it('reports the k most likely ids with log-probs under the recorded distribution (float64 recomputation)', async () => {
    const k = 5;
    for (const sampling of [
      { maxNewTokens: 6, temperature: 0.8, topK: 3, seed: 21, topLogprobs: k },
      { maxNewTokens: 6, temperature: 0, topLogprobs: k },
    ]) {
      const out = await qwen3.generate(prompts, sampling);
      const scale = sampling.temperature > 0 ? 1 / sampling.temperature : 1;
      out.forEach((sequence, i) => {
        const top = sequence.topLogprobs!;
        expect(top.ids.length).toBe(k * sequence.tokens.length);
        const all = Int32Array.from([...prompts[i]!, ...sequence.tokens]);
        const logits = tf.tidy(
          () => qwen3.logits(tf.tensor2d(all, [1, all.length], 'int32')).arraySync()[0]!,
        );
        sequence.tokens.forEach((token, step) => {
          // log softmax(logits / T) in float64 from the training forward.
          const z = logits[prompts[i]!.length - 1 + step]!.map((v) => v * scale);
          const max = Math.max(...z);
          const lse = max + Math.log(z.reduce((a, v) => a + Math.exp(v - max), 0));
          const expected = z.map((v) => v - lse);
          const ids = Array.from(top.ids.subarray(step * k, (step + 1) * k));
          const lps = Array.from(top.logProbs.subarray(step * k, (step + 1) * k));
          ids.forEach((id, j) => {
            expect(Math.abs(lps[j]! - expected[id]!)).toBeLessThan(1e-5);
            if (j > 0) expect(lps[j]!).toBeLessThanOrEqual(lps[j - 1]!);
          });
          expect(new Set(ids).size).toBe(k);
          // Nothing left out is more likely than the k-th reported id.
          const leftOut = expected.filter((_, id) => !ids.includes(id));
          expect(Math.max(...leftOut)).toBeLessThanOrEqual(lps[k - 1]! + 1e-5);
          // Top-k 3 sampling draws from the three most likely ids; greedy takes the first.
          expect(ids.slice(0, sampling.temperature === 0 ? 1 : 3)).toContain(token);
        });
      });
    }
    const plain = await qwen3.generate(prompts, { maxNewTokens: 2 });
    expect(plain.every((s) => s.topLogprobs === undefined)).toBe(true);
  });

  it('keeps the tensor count flat and rejects bad requests clearly', async () => {
    await qwen3.generate(prompts, { maxNewTokens: 3, temperature: 1, seed: 1 });
    const before = tf.memory().numTensors;
    await qwen3.generate(prompts, { maxNewTokens: 6, temperature: 1, topP: 0.5, seed: 2, stopTokenIds: [0] });
    expect(tf.memory().numTensors).toBe(before);
    await expect(qwen3.generate(prompts, { maxNewTokens: 2, stopStrings: ['x'] })).rejects.toThrow(/decode/);
    await expect(qwen3.generate([Int32Array.from([1, 37])], { maxNewTokens: 2 })).rejects.toThrow(
      /prompt 0: token 37 at 1 is outside the vocabulary \[0, 37\)/,
    );
    await expect(qwen3.generate([new Int32Array(0)], { maxNewTokens: 2 })).rejects.toThrow(
      /prompt 0 is empty/,
    );
    await expect(qwen3.generate(prompts, { maxNewTokens: 2, topP: 0 })).rejects.toThrow(/topP/);
    const none = await qwen3.generate(prompts, { maxNewTokens: 0 });
    expect(none.map((s) => s.tokens.length)).toEqual([0, 0, 0]);
  });

  it('ends with "length" at the model\'s last position', async () => {
    const long = Int32Array.from({ length: 60 }, (_, i) => i % 37);
    const [out] = await qwen3.generate([long], { maxNewTokens: 10, temperature: 0 });
    expect(out!.tokens.length).toBe(4);
    expect(out!.finishReason).toBe('length');
  });
});
