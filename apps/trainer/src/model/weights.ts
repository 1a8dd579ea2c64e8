import * as tf from '@tensorflow/tfjs';
import { weightSpecs } from './checkpoint.js';
import type { ModelConfig } from './config.js';
import type { DecoderWeights, LayerWeights } from './decoder.js';

/** Hugging Face [out, in] matrices, laid side by side as one [in, sum(out)] matrix. */
function fuseTransposed(parts: Float32Array[], outs: number[], inDim: number): Float32Array {
  const total = outs.reduce((a, b) => a + b, 0);
  const fused = new Float32Array(inDim * total);
  let offset = 0;
  parts.forEach((part, p) => {
    const out = outs[p]!;
    for (let o = 0; o < out; o++)
      for (let i = 0; i < inDim; i++) fused[i * total + offset + o] = part[o * inDim + i]!;
    offset += out;
  });
  return fused;
}

/** The inverse of `fuseTransposed`: one [in, sum(out)] matrix back into Hugging Face [out, in] matrices. */
function splitTransposed(fused: Float32Array, outs: number[], inDim: number): Float32Array[] {
  const total = outs.reduce((a, b) => a + b, 0);
  let offset = 0;
  return outs.map((out) => {
    const part = new Float32Array(out * inDim);
    for (let o = 0; o < out; o++)
      for (let i = 0; i < inDim; i++) part[o * inDim + i] = fused[i * total + offset + o]!;
    offset += out;
    return part;
  });
}

function concat(parts: Float32Array[]): Float32Array {
  const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function projectionSizes(config: ModelConfig) {
  const q = config.numHeads * config.headDim;
  const kv = config.numKvHeads * config.headDim;
  return { qkv: [q, kv, kv] };
}

/** tfjs variable names are global: each set of weights gets its own prefix. */
let instances = 0;

/**
 * Builds trainable variables from Hugging Face tensors (as `loadCheckpoint` returns them). Variables are named
 * `policy<k>/<HF name>` (the fused ones `qkv` and `qkv_bias`), so a name tells e.g. a norm weight apart.
 */
export function weightsFromTensors(config: ModelConfig, tensors: Map<string, Float32Array>): DecoderWeights {
  const prefix = `policy${instances++}/`;
  const get = (name: string): Float32Array => {
    const data = tensors.get(name);
    if (data === undefined) throw new Error(`weights: tensor "${name}" is missing`);
    return data;
  };
  const d = config.hiddenSize;
  const sizes = projectionSizes(config);
  // tf.variable shares the initial tensor's data; disposing that tensor leaves the variable as sole owner.
  const variable = <R extends tf.Rank>(data: Float32Array, shape: number[], name: string) =>
    tf.tidy(() => tf.variable(tf.tensor(data, shape), true, prefix + name) as unknown as tf.Variable<R>);
  const layers = Array.from({ length: config.numLayers }, (_, i): LayerWeights => {
    const p = `model.layers.${i}`;
    const qkvNames = ['q_proj', 'k_proj', 'v_proj'].map((n) => `${p}.self_attn.${n}`);
    const qkvOut = sizes.qkv.reduce((a, b) => a + b, 0);
    const layer: LayerWeights = {
      inputNorm: variable(get(`${p}.input_layernorm.weight`), [d], `${p}.input_layernorm.weight`),
      qkv: variable(
        fuseTransposed(
          qkvNames.map((n) => get(`${n}.weight`)),
          sizes.qkv,
          d,
        ),
        [d, qkvOut],
        `${p}.self_attn.qkv`,
      ),
      o: variable(
        fuseTransposed([get(`${p}.self_attn.o_proj.weight`)], [d], sizes.qkv[0]!),
        [sizes.qkv[0]!, d],
        `${p}.self_attn.o_proj.weight`,
      ),
      postNorm: variable(
        get(`${p}.post_attention_layernorm.weight`),
        [d],
        `${p}.post_attention_layernorm.weight`,
      ),
      gate: variable(
        fuseTransposed([get(`${p}.mlp.gate_proj.weight`)], [config.intermediateSize], d),
        [d, config.intermediateSize],
        `${p}.mlp.gate_proj.weight`,
      ),
      up: variable(
        fuseTransposed([get(`${p}.mlp.up_proj.weight`)], [config.intermediateSize], d),
        [d, config.intermediateSize],
        `${p}.mlp.up_proj.weight`,
      ),
      down: variable(
        fuseTransposed([get(`${p}.mlp.down_proj.weight`)], [d], config.intermediateSize),
        [config.intermediateSize, d],
        `${p}.mlp.down_proj.weight`,
      ),
    };
    if (config.attentionBias) {
      layer.qkvBias = variable(
        concat(qkvNames.map((n) => get(`${n}.bias`))),
        [qkvOut],
        `${p}.self_attn.qkv_bias`,
      );
    }
    if (config.qkNorm) {
      layer.qNorm = variable(
        get(`${p}.self_attn.q_norm.weight`),
        [config.headDim],
        `${p}.self_attn.q_norm.weight`,
      );
      layer.kNorm = variable(
        get(`${p}.self_attn.k_norm.weight`),
        [config.headDim],
        `${p}.self_attn.k_norm.weight`,
      );
    }
    return layer;
  });
  const weights: DecoderWeights = {
    embedding: variable(get('model.embed_tokens.weight'), [config.vocabSize, d], 'model.embed_tokens.weight'),
    layers,
    norm: variable(get('model.norm.weight'), [d], 'model.norm.weight'),
  };
  if (!config.tieWordEmbeddings) {
    weights.lmHead = variable(
      fuseTransposed([get('lm_head.weight')], [config.vocabSize], d),
      [d, config.vocabSize],
      'lm_head.weight',
    );
  }
  return weights;
}

/** Reads the variables back into Hugging Face tensors (exact: only reordering, no arithmetic). */
export function tensorsFromWeights(config: ModelConfig, weights: DecoderWeights): Map<string, Float32Array> {
  const read = (v: tf.Variable) => v.dataSync() as Float32Array;
  const d = config.hiddenSize;
  const sizes = projectionSizes(config);
  const tensors = new Map<string, Float32Array>();
  tensors.set('model.embed_tokens.weight', read(weights.embedding));
  weights.layers.forEach((layer, i) => {
    const p = `model.layers.${i}`;
    tensors.set(`${p}.input_layernorm.weight`, read(layer.inputNorm));
    const [q, k, v] = splitTransposed(read(layer.qkv), sizes.qkv, d);
    tensors.set(`${p}.self_attn.q_proj.weight`, q!);
    tensors.set(`${p}.self_attn.k_proj.weight`, k!);
    tensors.set(`${p}.self_attn.v_proj.weight`, v!);
    if (layer.qkvBias) {
      const bias = read(layer.qkvBias);
      const [qs, ks] = sizes.qkv as [number, number, number];
      tensors.set(`${p}.self_attn.q_proj.bias`, bias.slice(0, qs));
      tensors.set(`${p}.self_attn.k_proj.bias`, bias.slice(qs, qs + ks));
      tensors.set(`${p}.self_attn.v_proj.bias`, bias.slice(qs + ks));
    }
    tensors.set(`${p}.self_attn.o_proj.weight`, splitTransposed(read(layer.o), [d], sizes.qkv[0]!)[0]!);
    if (layer.qNorm && layer.kNorm) {
      tensors.set(`${p}.self_attn.q_norm.weight`, read(layer.qNorm));
      tensors.set(`${p}.self_attn.k_norm.weight`, read(layer.kNorm));
    }
    tensors.set(`${p}.post_attention_layernorm.weight`, read(layer.postNorm));
    tensors.set(
      `${p}.mlp.gate_proj.weight`,
      splitTransposed(read(layer.gate), [config.intermediateSize], d)[0]!,
    );
    tensors.set(`${p}.mlp.up_proj.weight`, splitTransposed(read(layer.up), [config.intermediateSize], d)[0]!);
    tensors.set(
      `${p}.mlp.down_proj.weight`,
      splitTransposed(read(layer.down), [d], config.intermediateSize)[0]!,
    );
  });
  tensors.set('model.norm.weight', read(weights.norm));
  if (weights.lmHead)
    tensors.set('lm_head.weight', splitTransposed(read(weights.lmHead), [config.vocabSize], d)[0]!);
  return tensors;
}

/** Every variable, in a stable order (the optimizer's state follows it). */
export function weightVariables(weights: DecoderWeights): tf.Variable[] {
  const vars: tf.Variable[] = [weights.embedding];
  for (const l of weights.layers) {
    vars.push(l.inputNorm, l.qkv);
    if (l.qkvBias) vars.push(l.qkvBias);
    vars.push(l.o);
    if (l.qNorm && l.kNorm) vars.push(l.qNorm, l.kNorm);
    vars.push(l.postNorm, l.gate, l.up, l.down);
  }
  vars.push(weights.norm);
  if (weights.lmHead) vars.push(weights.lmHead);
  return vars;
}

/** A seeded PRNG (mulberry32): reproducible initialisation and sampling without global state. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Fresh Hugging Face tensors for a config: norms 1, biases 0, every matrix N(0, 0.02^2) (transformers'
 * initializer_range default), and the residual-branch outputs (o_proj, down_proj) scaled by 1/sqrt(2 * layers) as
 * in GPT-2, so the residual stream's variance does not grow with depth.
 */
export function initialTensors(config: ModelConfig, seed: number): Map<string, Float32Array> {
  const random = mulberry32(seed);
  const gaussian = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  const residualScale = 1 / Math.sqrt(2 * config.numLayers);
  const tensors = new Map<string, Float32Array>();
  for (const spec of weightSpecs(config)) {
    const data = new Float32Array(spec.shape.reduce((a, b) => a * b, 1));
    if (spec.name.endsWith('norm.weight')) data.fill(1);
    else if (spec.name.endsWith('.weight')) {
      const std = /(o_proj|down_proj)\.weight$/.test(spec.name) ? 0.02 * residualScale : 0.02;
      for (let i = 0; i < data.length; i++) data[i] = std * gaussian();
    }
    tensors.set(spec.name, data);
  }
  return tensors;
}
