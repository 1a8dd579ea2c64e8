import { matMul2d } from '@taorl/grpo';
import * as tf from '@tensorflow/tfjs';
import type { ModelConfig } from './config.js';
import { embed, rmsNorm, swiGlu } from './layers.js';
import { permute } from './permute.js';
import { batchMatMul, channelProduct } from './products.js';
import { applyRope, type RopeTables } from './rope.js';

/**
 * One decoder layer's weights. Linear weights are stored [in, out] (transposed from the Hugging Face [out, in]) so
 * products need no transposed matMul. Nothing is fused: splitting a fused product's output costs a copy on wasm
 * (and a concat in the gradient) that separate products do not.
 */
export interface LayerWeights {
  inputNorm: tf.Variable<tf.Rank.R1>;
  q: tf.Variable<tf.Rank.R2>;
  k: tf.Variable<tf.Rank.R2>;
  v: tf.Variable<tf.Rank.R2>;
  qBias?: tf.Variable<tf.Rank.R1>;
  kBias?: tf.Variable<tf.Rank.R1>;
  vBias?: tf.Variable<tf.Rank.R1>;
  o: tf.Variable<tf.Rank.R2>;
  qNorm?: tf.Variable<tf.Rank.R1>;
  kNorm?: tf.Variable<tf.Rank.R1>;
  postNorm: tf.Variable<tf.Rank.R1>;
  gate: tf.Variable<tf.Rank.R2>;
  up: tf.Variable<tf.Rank.R2>;
  down: tf.Variable<tf.Rank.R2>;
}

/** All weights of a decoder; `lmHead` ([d, vocab]) is absent when the head is tied to the embedding. */
export interface DecoderWeights {
  embedding: tf.Variable<tf.Rank.R2>;
  /** Token shift: embeddings of the previous token, added to the token's own (config.tokenShift). */
  prevEmbedding?: tf.Variable<tf.Rank.R2>;
  layers: LayerWeights[];
  norm: tf.Variable<tf.Rank.R1>;
  lmHead?: tf.Variable<tf.Rank.R2>;
}

/** Keys (transposed) and values of one layer, [batch * kvHeads, headDim, len] and [batch * kvHeads, len, headDim]. */
export interface LayerCache {
  keysT: tf.Tensor3D;
  values: tf.Tensor3D;
}

/** What a forward pass attends with: RoPE tables for the new tokens and an additive mask over all keys. */
export interface AttentionContext {
  rope: RopeTables;
  /** Additive mask [b or 1, t, len]: 0 where a query may attend a key, MASKED otherwise. */
  mask: tf.Tensor;
  /** Keys and values of earlier tokens, one per layer (KV-cache decoding). */
  cache?: LayerCache[];
  /** Token shift: each position's previous token [b, t] int32, -1 for none; default: the input shifted by one. */
  prevTokens?: tf.Tensor2D;
  /** Return each layer's keys and values (to start a KV cache); implied when `cache` is given. */
  collectCache?: boolean;
}

/** Added to the scores of forbidden keys: exp underflows to exactly 0, and a fully masked row stays finite. */
export const MASKED = -1e9;

/** Query, key and value heads of t new tokens: q [b, t, kvHeads, group, dh] (scaled), k and v [b, t, kvHeads, dh]. */
interface Heads {
  q: tf.Tensor;
  k: tf.Tensor;
  v: tf.Tensor;
}

/** A projection of the normed input, with its bias when the model has one (Qwen2). */
function project(x: tf.Tensor2D, weight: tf.Variable<tf.Rank.R2>, bias: tf.Variable<tf.Rank.R1> | undefined) {
  const y = matMul2d(x, weight);
  return bias ? tf.add(y, bias) : y;
}

function heads(
  x: tf.Tensor2D,
  layer: LayerWeights,
  config: ModelConfig,
  b: number,
  t: number,
  rope: RopeTables,
): Heads {
  const { numHeads: h, numKvHeads: hkv, headDim: dh, rmsNormEps: eps } = config;
  let q = tf.reshape(project(x, layer.q, layer.qBias), [b, t, h, dh]);
  let k = tf.reshape(project(x, layer.k, layer.kBias), [b, t, hkv, dh]);
  if (layer.qNorm && layer.kNorm) {
    q = rmsNorm(q, layer.qNorm, eps);
    k = rmsNorm(k, layer.kNorm, eps);
  }
  // Grouped-query attention without repeating K and V: query head j uses KV head floor(j / group), so the
  // `group` query heads of one KV head sit together on their own axis.
  return {
    q: tf.reshape(tf.mul(applyRope(q, rope), 1 / Math.sqrt(dh)), [b, t, hkv, h / hkv, dh]),
    k: applyRope(k, rope),
    v: tf.reshape(project(x, layer.v, layer.vBias), [b, t, hkv, dh]),
  };
}

function toCache(k: tf.Tensor, v: tf.Tensor): LayerCache {
  const [b, t, hkv, dh] = k.shape as [number, number, number, number];
  return {
    keysT: tf.reshape(permute(k, [0, 2, 3, 1]), [b * hkv, dh, t]),
    values: tf.reshape(permute(v, [0, 2, 1, 3]), [b * hkv, t, dh]),
  };
}

/**
 * Attention as batched matMuls over (batch, KV head): [group * t, dh] x [dh, len] scores. Used with a KV cache
 * (one new token: small products) and on backends whose batched matMul is fast.
 */
function attendByMatMul(heads: Heads, mask: tf.Tensor, all: LayerCache): tf.Tensor2D {
  const [b, t, hkv, group, dh] = heads.q.shape as [number, number, number, number, number];
  const len = all.keysT.shape[2];
  const q = tf.reshape(permute(heads.q, [0, 2, 3, 1, 4]), [b * hkv, group * t, dh]) as tf.Tensor3D;
  const masks = tf.reshape(mask, [mask.shape[0]!, 1, 1, t, len]);
  const scores = tf.add(tf.reshape(batchMatMul(q, all.keysT), [b, hkv, group, t, len]), masks);
  const probs = tf.reshape(tf.softmax(scores), [b * hkv, group * t, len]) as tf.Tensor3D;
  const mixed = tf.reshape(batchMatMul(probs, all.values), [b, hkv, group, t, dh]);
  return tf.reshape(permute(mixed, [0, 3, 1, 2, 4]), [b * t, hkv * group * dh]);
}

/**
 * The same attention over the new tokens only, laid out channel-last for `channelProduct` (the fast path on
 * wasm): scores [group, t, b, kvHeads, len], softmax over the last axis.
 */
function attendByChannels(heads: Heads, mask: tf.Tensor): tf.Tensor2D {
  const [b, t, hkv, group, dh] = heads.q.shape as [number, number, number, number, number];
  const n = b * hkv;
  const q = tf.reshape(permute(heads.q, [3, 1, 0, 2, 4]), [group * t, n, dh]) as tf.Tensor3D;
  const k = tf.reshape(permute(heads.k, [3, 0, 2, 1]), [dh, n, t]) as tf.Tensor3D;
  const masks = tf.reshape(permute(mask, [1, 0, 2]), [1, t, mask.shape[0]!, 1, t]);
  const scores = tf.add(tf.reshape(channelProduct(q, k), [group, t, b, hkv, t]), masks);
  const probs = tf.reshape(tf.softmax(scores), [group * t, n, t]) as tf.Tensor3D;
  const v = tf.reshape(permute(heads.v, [1, 0, 2, 3]), [t, n, dh]) as tf.Tensor3D;
  const mixed = tf.reshape(channelProduct(probs, v), [group, t, b, hkv, dh]);
  return tf.reshape(permute(mixed, [2, 1, 3, 0, 4]), [b * t, hkv * group * dh]);
}

function attention(
  x: tf.Tensor2D,
  layer: LayerWeights,
  config: ModelConfig,
  [b, t]: [number, number],
  context: AttentionContext,
  past: LayerCache | undefined,
): { out: tf.Tensor2D; cache?: LayerCache } {
  const h = heads(x, layer, config, b, t, context.rope);
  const wantCache = context.collectCache === true || past !== undefined;
  let cache = wantCache ? toCache(h.k, h.v) : undefined;
  if (past && cache) {
    cache = {
      keysT: tf.concat([past.keysT, cache.keysT], 2),
      values: tf.concat([past.values, cache.values], 1),
    };
  }
  const mixed =
    past === undefined && tf.getBackend() === 'wasm'
      ? attendByChannels(h, context.mask)
      : attendByMatMul(h, context.mask, cache ?? toCache(h.k, h.v));
  return { out: matMul2d(mixed, layer.o), ...(cache ? { cache } : {}) };
}

function mlp(x: tf.Tensor2D, layer: LayerWeights): tf.Tensor2D {
  return matMul2d(swiGlu(matMul2d(x, layer.gate), matMul2d(x, layer.up)), layer.down);
}

/**
 * The decoder stack: tokens [b, t] int32 -> final-normed hidden states [b * t, d] and each layer's keys and values
 * (including the cached ones). Pre-norm residual blocks: h += attn(norm(h)); h += mlp(norm(h)).
 */
export function decoderHidden(
  weights: DecoderWeights,
  config: ModelConfig,
  tokens: tf.Tensor2D,
  context: AttentionContext,
): { hidden: tf.Tensor2D; cache: LayerCache[] } {
  const [b, t] = tokens.shape;
  let h = embed(tf.reshape(tokens, [b * t]), weights.embedding);
  if (weights.prevEmbedding) {
    const prev =
      context.prevTokens ??
      (t === 1
        ? tf.fill([b, 1], -1, 'int32')
        : tf.concat([tf.fill([b, 1], -1, 'int32'), tf.slice(tokens, [0, 0], [b, t - 1])], 1));
    h = tf.add(h, embed(tf.reshape(prev, [b * t]), weights.prevEmbedding));
  }
  const cache: LayerCache[] = [];
  weights.layers.forEach((layer, i) => {
    const normed = rmsNorm(h, layer.inputNorm, config.rmsNormEps);
    const { out, cache: layerCache } = attention(normed, layer, config, [b, t], context, context.cache?.[i]);
    if (layerCache) cache.push(layerCache);
    h = tf.add(h, out);
    h = tf.add(h, mlp(rmsNorm(h, layer.postNorm, config.rmsNormEps), layer));
  });
  return { hidden: rmsNorm(h, weights.norm, config.rmsNormEps), cache };
}

/** The output head as a [d, vocab] matrix: the untied head, or the transposed embedding. */
export function headMatrix(weights: DecoderWeights): tf.Tensor2D {
  return weights.lmHead ?? tf.transpose(weights.embedding);
}

/** Additive causal mask for t queries at the end of len keys, [1, t, len]. */
export function causalMask(t: number, len: number): tf.Tensor {
  const values = new Float32Array(t * len);
  for (let i = 0; i < t; i++) for (let j = len - t + i + 1; j < len; j++) values[i * len + j] = MASKED;
  return tf.tensor(values, [1, t, len]);
}
