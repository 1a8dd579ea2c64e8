import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ReferenceConfig } from './reference64.js';

// The test's own safetensors writer (not the package's), so reader bugs cannot cancel writer bugs.

export type TestDtype = 'F32' | 'F16' | 'BF16' | 'I32';

export interface TestTensor {
  name: string;
  shape: number[];
  data: Float32Array;
}

function encodeValue(dtype: TestDtype, value: number, out: Buffer, at: number): void {
  const f32 = Buffer.alloc(4);
  f32.writeFloatLE(value);
  if (dtype === 'F32') f32.copy(out, at);
  else if (dtype === 'BF16') out.writeUInt16LE(f32.readUInt32LE() >>> 16, at);
  else if (dtype === 'I32') out.writeInt32LE(Math.round(value), at);
  else out.writeUInt16LE(toHalf(value), at);
}

/** float -> binary16 bits for values exactly representable in it (the tests choose such values). */
function toHalf(value: number): number {
  if (value === 0) return Object.is(value, -0) ? 0x8000 : 0;
  const sign = value < 0 ? 0x8000 : 0;
  const a = Math.abs(value);
  const exponent = Math.floor(Math.log2(a));
  if (exponent < -14) return sign | Math.round(a / 2 ** -24);
  return sign | ((exponent + 15) << 10) | Math.round((a / 2 ** exponent - 1) * 1024);
}

function safetensorsBytes(tensors: TestTensor[], dtype: TestDtype): Buffer {
  const width = dtype === 'F32' || dtype === 'I32' ? 4 : 2;
  const header: Record<string, unknown> = {};
  let offset = 0;
  for (const t of tensors) {
    header[t.name] = { dtype, shape: t.shape, data_offsets: [offset, offset + width * t.data.length] };
    offset += width * t.data.length;
  }
  const json = Buffer.from(JSON.stringify(header));
  const out = Buffer.alloc(8 + json.length + offset);
  out.writeBigUInt64LE(BigInt(json.length));
  json.copy(out, 8);
  let at = 8 + json.length;
  for (const t of tensors) {
    for (const v of t.data) {
      encodeValue(dtype, v, out, at);
      at += width;
    }
  }
  return out;
}

export function hfConfigJson(config: ReferenceConfig, family: 'qwen2' | 'qwen3'): Record<string, unknown> {
  return {
    model_type: family,
    vocab_size: config.vocabSize,
    hidden_size: config.hiddenSize,
    intermediate_size: config.intermediateSize,
    num_hidden_layers: config.numLayers,
    num_attention_heads: config.numHeads,
    num_key_value_heads: config.numKvHeads,
    ...(family === 'qwen3' ? { head_dim: config.headDim, attention_bias: false } : {}),
    hidden_act: 'silu',
    max_position_embeddings: 64,
    rms_norm_eps: config.rmsNormEps,
    rope_theta: config.ropeTheta,
    tie_word_embeddings: config.tied,
  };
}

/**
 * config.json as transformers 5 writes it for a Qwen3 model: the RoPE base only inside `rope_parameters`, `dtype`
 * instead of `torch_dtype`, and `layer_types`. `modelType` replaces "qwen3" (taorl's token-shift type).
 */
export function transformers5ConfigJson(
  config: ReferenceConfig,
  modelType = 'qwen3',
): Record<string, unknown> {
  const { rope_theta: _theta, ...rest } = hfConfigJson(config, 'qwen3');
  return {
    ...rest,
    model_type: modelType,
    rope_parameters: { rope_theta: config.ropeTheta, rope_type: 'default' },
    layer_types: Array.from({ length: config.numLayers }, () => 'full_attention'),
    use_sliding_window: false,
    sliding_window: null,
    dtype: 'float32',
    transformers_version: '5.0.0',
  };
}

/** Every tensor of the config, filled by `value(name, index)`. */
export function testTensors(
  config: ReferenceConfig,
  value: (name: string, i: number) => number,
): TestTensor[] {
  const {
    hiddenSize: d,
    numHeads: h,
    numKvHeads: hkv,
    headDim: dh,
    intermediateSize: m,
    vocabSize: v,
  } = config;
  const specs: [string, number[]][] = [['model.embed_tokens.weight', [v, d]]];
  if (config.tokenShift) specs.push(['model.prev_embed_tokens.weight', [v, d]]);
  for (let l = 0; l < config.numLayers; l++) {
    const p = `model.layers.${l}`;
    specs.push([`${p}.input_layernorm.weight`, [d]]);
    specs.push([`${p}.self_attn.q_proj.weight`, [h * dh, d]]);
    specs.push([`${p}.self_attn.k_proj.weight`, [hkv * dh, d]]);
    specs.push([`${p}.self_attn.v_proj.weight`, [hkv * dh, d]]);
    if (config.bias) {
      specs.push([`${p}.self_attn.q_proj.bias`, [h * dh]]);
      specs.push([`${p}.self_attn.k_proj.bias`, [hkv * dh]]);
      specs.push([`${p}.self_attn.v_proj.bias`, [hkv * dh]]);
    }
    specs.push([`${p}.self_attn.o_proj.weight`, [d, h * dh]]);
    if (config.qkNorm) {
      specs.push([`${p}.self_attn.q_norm.weight`, [dh]]);
      specs.push([`${p}.self_attn.k_norm.weight`, [dh]]);
    }
    specs.push([`${p}.post_attention_layernorm.weight`, [d]]);
    specs.push([`${p}.mlp.gate_proj.weight`, [m, d]]);
    specs.push([`${p}.mlp.up_proj.weight`, [m, d]]);
    specs.push([`${p}.mlp.down_proj.weight`, [d, m]]);
  }
  specs.push(['model.norm.weight', [d]]);
  if (!config.tied) specs.push(['lm_head.weight', [v, d]]);
  return specs.map(([name, shape]) => ({
    name,
    shape,
    data: Float32Array.from({ length: shape.reduce((a, b) => a * b, 1) }, (_, i) => value(name, i)),
  }));
}

/** Seeded weights of a size that gives logits of order 1: norms near 1, matrices N(0, 0.25^2)-like. */
export function randomTensors(config: ReferenceConfig, seed: number): TestTensor[] {
  let state = seed >>> 0;
  const uniform = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
  return testTensors(config, (name) =>
    name.endsWith('norm.weight') ? 0.5 + uniform() : (uniform() - 0.5) * (name.endsWith('.bias') ? 0.4 : 0.8),
  );
}

export function writeFolder(
  dir: string,
  config: Record<string, unknown>,
  shards: TestTensor[][],
  dtype: TestDtype = 'F32',
): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
  if (shards.length === 1) {
    writeFileSync(join(dir, 'model.safetensors'), safetensorsBytes(shards[0]!, dtype));
    return;
  }
  const weightMap: Record<string, string> = {};
  shards.forEach((shard, i) => {
    const file = `part-${i}.safetensors`;
    writeFileSync(join(dir, file), safetensorsBytes(shard, dtype));
    for (const t of shard) weightMap[t.name] = file;
  });
  writeFileSync(
    join(dir, 'model.safetensors.index.json'),
    JSON.stringify({ metadata: {}, weight_map: weightMap }),
  );
}

export const QWEN3_TEST: ReferenceConfig = {
  vocabSize: 37,
  hiddenSize: 16,
  intermediateSize: 24,
  numLayers: 2,
  numHeads: 4,
  numKvHeads: 2,
  // Explicit head_dim different from hidden / heads (= 4), as in Qwen3-0.6B.
  headDim: 8,
  rmsNormEps: 1e-6,
  ropeTheta: 10000,
  tied: false,
  bias: false,
  qkNorm: true,
};

export const QWEN2_TEST: ReferenceConfig = {
  vocabSize: 29,
  hiddenSize: 12,
  intermediateSize: 20,
  numLayers: 2,
  numHeads: 3,
  numKvHeads: 1,
  headDim: 4,
  rmsNormEps: 1e-6,
  ropeTheta: 1_000_000,
  tied: true,
  bias: true,
  qkNorm: false,
};
