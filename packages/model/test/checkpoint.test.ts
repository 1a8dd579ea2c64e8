import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initBackend } from '@taorl/grpo';
import * as tf from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCheckpoint } from '../src/files/checkpoint.js';
import { loadPolicy } from '../src/files/folder-policy.js';
import {
  hfConfigJson,
  QWEN2_TEST,
  QWEN3_TEST,
  randomTensors,
  type TestTensor,
  testTensors,
  writeFolder,
} from './support/checkpoint-files.js';

const root = mkdtempSync(join(tmpdir(), 'taorl-checkpoint-'));
beforeAll(async () => {
  await initBackend({ prefer: 'wasm' });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

let folders = 0;
const folder = () => join(root, `f${folders++}`);

function bits(data: Float32Array): number[] {
  return Array.from(new Uint32Array(data.buffer, data.byteOffset, data.length));
}

function expectSameTensors(actual: Map<string, Float32Array>, expected: TestTensor[]): void {
  expect([...actual.keys()].sort()).toEqual(expected.map((t) => t.name).sort());
  for (const t of expected) expect(bits(actual.get(t.name)!)).toEqual(bits(t.data));
}

describe('loading Hugging Face folders', () => {
  it('reads F32, BF16 and F16 values exactly, from one file or from shards with an index', async () => {
    // Values k/64 in [-2, 2) are exact in binary16 and bfloat16 alike, so the widened float32 must equal them.
    const tensors = testTensors(QWEN3_TEST, (name, i) => ((i * 37 + name.length * 11) % 256) / 64 - 2);
    for (const dtype of ['F32', 'BF16', 'F16'] as const) {
      const single = folder();
      writeFolder(single, hfConfigJson(QWEN3_TEST, 'qwen3'), [tensors], dtype);
      expectSameTensors((await loadCheckpoint(single)).tensors, tensors);
    }
    const sharded = folder();
    writeFolder(sharded, hfConfigJson(QWEN3_TEST, 'qwen3'), [tensors.slice(0, 7), tensors.slice(7)], 'BF16');
    expectSameTensors((await loadCheckpoint(sharded)).tensors, tensors);
  });

  it('widens F16 subnormals, negative zero and large values exactly', async () => {
    const special = [2 ** -24, 3 * 2 ** -20, -0, 65504, -1.5, 2 ** -14];
    const tensors = testTensors(QWEN2_TEST, (_n, i) => special[i % special.length]!);
    const dir = folder();
    writeFolder(dir, hfConfigJson(QWEN2_TEST, 'qwen2'), [tensors], 'F16');
    expectSameTensors((await loadCheckpoint(dir)).tensors, tensors);
  });

  it('save then load is bit-exact (single file and shards), and the reloaded policy computes the same logits', async () => {
    for (const [family, config] of [
      ['qwen3', QWEN3_TEST],
      ['qwen2', QWEN2_TEST],
    ] as const) {
      const source = folder();
      const tensors = randomTensors(config, 21);
      writeFolder(source, hfConfigJson(config, family), [tensors]);
      const policy = await loadPolicy(source);
      const saved = folder();
      await policy.save(saved);
      expectSameTensors((await loadCheckpoint(saved)).tensors, tensors);
      const sharded = folder();
      await policy.save(sharded, { maxShardBytes: 4096 });
      expect(existsSync(join(sharded, 'model.safetensors.index.json'))).toBe(true);
      expectSameTensors((await loadCheckpoint(sharded)).tensors, tensors);
      // Saved over in the other layout, a folder holds only the new weights: no index or shard is read in their place.
      const otherSource = folder();
      writeFolder(otherSource, hfConfigJson(config, family), [randomTensors(config, 22)]);
      const other = await loadPolicy(otherSource);
      await other.save(sharded);
      expect(readdirSync(sharded).filter((name) => name.includes('safetensors'))).toEqual([
        'model.safetensors',
      ]);
      expectSameTensors((await loadCheckpoint(sharded)).tensors, randomTensors(config, 22));
      await policy.save(saved, { maxShardBytes: 4096 });
      expect(existsSync(join(saved, 'model.safetensors'))).toBe(false);
      await policy.save(saved);
      other.dispose();
      const savedConfig = JSON.parse(readFileSync(join(saved, 'config.json'), 'utf8'));
      expect(savedConfig.architectures).toEqual([
        family === 'qwen3' ? 'Qwen3ForCausalLM' : 'Qwen2ForCausalLM',
      ]);
      const reloaded = await loadPolicy(saved);
      const tokens = tf.tensor2d([[1, 4, 9, 16, 25, 0]], [1, 6], 'int32');
      const a = policy.logits(tokens);
      const b = reloaded.logits(tokens);
      expect(bits(a.dataSync() as Float32Array)).toEqual(bits(b.dataSync() as Float32Array));
      tf.dispose([tokens, a, b]);
      policy.dispose();
      reloaded.dispose();
    }
  });
});

describe('bad folders give clear errors', () => {
  const good = () => randomTensors(QWEN3_TEST, 1);
  const config = () => hfConfigJson(QWEN3_TEST, 'qwen3');

  it('no config.json, no weights, or a shard the index names but the folder lacks', async () => {
    const empty = folder();
    writeFolder(empty, config(), [good()]);
    rmSync(join(empty, 'config.json'));
    await expect(loadCheckpoint(empty)).rejects.toThrow(/no config\.json/);
    const noWeights = folder();
    writeFolder(noWeights, config(), [good()]);
    rmSync(join(noWeights, 'model.safetensors'));
    await expect(loadCheckpoint(noWeights)).rejects.toThrow(
      /neither model\.safetensors nor model\.safetensors\.index\.json/,
    );
    const sharded = folder();
    writeFolder(sharded, config(), [good().slice(0, 3), good().slice(3)]);
    rmSync(join(sharded, 'part-1.safetensors'));
    await expect(loadCheckpoint(sharded)).rejects.toThrow(
      /names shard "part-1\.safetensors", which is not in/,
    );
  });

  it('a missing tensor, a shape mismatch, an unexpected tensor', async () => {
    const missing = folder();
    writeFolder(missing, config(), [
      good().filter((t) => t.name !== 'model.layers.1.self_attn.k_norm.weight'),
    ]);
    await expect(loadCheckpoint(missing)).rejects.toThrow(
      /missing 1 tensor\(s\).*model\.layers\.1\.self_attn\.k_norm\.weight/,
    );
    const misshapen = folder();
    writeFolder(misshapen, config(), [
      good().map((t) => (t.name === 'model.layers.0.mlp.up_proj.weight' ? { ...t, shape: [16, 24] } : t)),
    ]);
    await expect(loadCheckpoint(misshapen)).rejects.toThrow(
      /model\.safetensors: tensor "model\.layers\.0\.mlp\.up_proj\.weight" has shape \[16,24\], config\.json implies \[24,16\]/,
    );
    const extra = folder();
    writeFolder(extra, config(), [
      [...good(), { name: 'model.layers.0.mlp.extra', shape: [2], data: new Float32Array(2) }],
    ]);
    await expect(loadCheckpoint(extra)).rejects.toThrow(
      /not used by a qwen3 model.*model\.layers\.0\.mlp\.extra/,
    );
  });

  it('an unsupported dtype, a truncated file, a bad config field', async () => {
    const ints = folder();
    writeFolder(ints, config(), [good()], 'I32');
    await expect(loadCheckpoint(ints)).rejects.toThrow(
      /has dtype I32; supported dtypes are F32, F16 and BF16/,
    );
    const truncated = folder();
    writeFolder(truncated, config(), [good()]);
    const bytes = readFileSync(join(truncated, 'model.safetensors'));
    writeFileSync(join(truncated, 'model.safetensors'), bytes.subarray(0, bytes.length - 10));
    await expect(loadCheckpoint(truncated)).rejects.toThrow(
      /data_offsets .* do not hold .* values within the file/,
    );
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ model_type: 'llama' }, /model_type "llama" is not supported/],
      [{ num_attention_heads: 0 }, /"num_attention_heads" must be a positive integer, got 0/],
      [
        { num_key_value_heads: 3 },
        /num_attention_heads \(4\) must be a multiple of num_key_value_heads \(3\)/,
      ],
      [{ rope_scaling: { type: 'yarn' } }, /rope_scaling\.type "yarn" is not supported/],
      [{ hidden_size: undefined }, /missing field "hidden_size"/],
    ];
    for (const [patch, message] of cases) {
      const dir = folder();
      const json = { ...config(), ...patch };
      if ('hidden_size' in patch) delete json.hidden_size;
      writeFolder(dir, json, [good()]);
      await expect(loadCheckpoint(dir)).rejects.toThrow(message);
    }
    const notJson = folder();
    writeFolder(notJson, config(), [good()]);
    writeFileSync(join(notJson, 'config.json'), '{ nope');
    await expect(loadCheckpoint(notJson)).rejects.toThrow(/config\.json: not valid JSON/);
  });
});
