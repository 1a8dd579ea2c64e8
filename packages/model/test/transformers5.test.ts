import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initBackend } from '@taorl/grpo';
import * as tf from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCheckpoint } from '../src/files/checkpoint.js';
import { createTinyPolicy, loadPolicy } from '../src/files/folder-policy.js';
import {
  hfConfigJson,
  QWEN3_TEST,
  randomTensors,
  transformers5ConfigJson,
  writeFolder,
} from './support/checkpoint-files.js';
import { type ReferenceConfig, referenceLogits } from './support/reference64.js';

// Checkpoints whose config.json is laid out as transformers >= 5 writes it (the RoPE base only in
// rope_parameters), with a RoPE base of 1e6 as real Qwen3 models have, against an independent float64 forward.

const root = mkdtempSync(join(tmpdir(), 'taorl-transformers5-'));
beforeAll(async () => {
  await initBackend({ prefer: 'wasm' });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const THETA_1E6: ReferenceConfig = { ...QWEN3_TEST, ropeTheta: 1_000_000 };
const TOKEN_SHIFT: ReferenceConfig = { ...THETA_1E6, tokenShift: true };
const sequence = [3, 17, 5, 0, 22, 9, 11, 4, 1, 2, 8, 19, 30, 6, 14, 27];

function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]! - b[i]!));
  return m;
}

/** The policy's logits of `sequence` in the folder, [t][vocab]. */
async function logitsOf(dir: string): Promise<number[][]> {
  const policy = await loadPolicy(dir);
  const tokens = tf.tensor2d([sequence], [1, sequence.length], 'int32');
  const logits = policy.logits(tokens);
  const rows = (logits.arraySync() as number[][][])[0]!;
  tf.dispose([tokens, logits]);
  policy.dispose();
  return rows;
}

/** Largest difference to the float64 forward of `config` over every position. */
async function distanceToReference(dir: string, config: ReferenceConfig): Promise<number> {
  const { tensors } = await loadCheckpoint(dir);
  const reference = referenceLogits(config, tensors, sequence);
  const logits = await logitsOf(dir);
  return Math.max(...reference.map((row, t) => maxAbsDiff(logits[t]!, row)));
}

describe('checkpoints written by transformers 5', () => {
  it('reads rope_parameters.rope_theta: the logits are those of a float64 forward at theta 1e6', async () => {
    const dir = join(root, 'qwen3-theta-1e6');
    const json = transformers5ConfigJson(THETA_1E6);
    expect(json).not.toHaveProperty('rope_theta');
    writeFolder(dir, { architectures: ['Qwen3ForCausalLM'], ...json }, [randomTensors(THETA_1E6, 11)]);
    expect(await distanceToReference(dir, THETA_1E6)).toBeLessThan(2e-5);
    // The base matters at these positions: the same weights at theta 1e4 compute visibly different logits.
    expect(await distanceToReference(dir, { ...THETA_1E6, ropeTheta: 10000 })).toBeGreaterThan(0.05);
  });

  it('reads a token-shift policy in that layout: the logits include the previous-token embedding', async () => {
    const dir = join(root, 'token-shift-theta-1e6');
    writeFolder(
      dir,
      {
        architectures: ['TaorlTokenShiftQwen3ForCausalLM'],
        ...transformers5ConfigJson(TOKEN_SHIFT, 'taorl_token_shift_qwen3'),
      },
      [randomTensors(TOKEN_SHIFT, 12)],
    );
    expect(await distanceToReference(dir, TOKEN_SHIFT)).toBeLessThan(2e-5);
    expect(await distanceToReference(dir, { ...TOKEN_SHIFT, tokenShift: false })).toBeGreaterThan(0.05);
  });
});

describe('token-shift policies on disk', () => {
  it('are saved under a model_type and architecture no other loader takes for Qwen3, and load back exactly', async () => {
    const policy = createTinyPolicy({ vocabSize: 40, maxPositionEmbeddings: 64, tokenShift: true, seed: 4 });
    const dir = join(root, 'saved-token-shift');
    await policy.save(dir);
    const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
    expect(config.architectures).toEqual(['TaorlTokenShiftQwen3ForCausalLM']);
    expect(config.model_type).toBe('taorl_token_shift_qwen3');
    const reloaded = await loadPolicy(dir);
    expect(reloaded.config.tokenShift).toBe(true);
    const tokens = tf.tensor2d([sequence.map((id) => id % 40)], [1, sequence.length], 'int32');
    const [a, b] = [policy.logits(tokens), reloaded.logits(tokens)];
    expect(Array.from(b.dataSync())).toEqual(Array.from(a.dataSync()));
    tf.dispose([tokens, a, b]);
    policy.dispose();
    reloaded.dispose();
    // A policy without token shift keeps the standard names.
    const plain = createTinyPolicy({ vocabSize: 40, maxPositionEmbeddings: 64, seed: 4 });
    const plainDir = join(root, 'saved-plain');
    await plain.save(plainDir);
    plain.dispose();
    const plainConfig = JSON.parse(readFileSync(join(plainDir, 'config.json'), 'utf8'));
    expect([plainConfig.model_type, plainConfig.architectures]).toEqual(['qwen3', ['Qwen3ForCausalLM']]);
  });

  it('folders taorl saved before (model_type qwen3, token_shift true) still load as token shift', async () => {
    const config: ReferenceConfig = { ...QWEN3_TEST, tokenShift: true };
    const dir = join(root, 'legacy-token-shift');
    writeFolder(
      dir,
      { architectures: ['Qwen3ForCausalLM'], ...hfConfigJson(config, 'qwen3'), token_shift: true },
      [randomTensors(config, 13)],
    );
    expect(await distanceToReference(dir, config)).toBeLessThan(2e-5);
    const resaved = join(root, 'legacy-resaved');
    const policy = await loadPolicy(dir);
    await policy.save(resaved);
    policy.dispose();
    expect(JSON.parse(readFileSync(join(resaved, 'config.json'), 'utf8')).model_type).toBe(
      'taorl_token_shift_qwen3',
    );
  });
});
