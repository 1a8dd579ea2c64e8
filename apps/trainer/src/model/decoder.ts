import { matMul2d } from '@taorl/grpo';
import * as tf from '@tensorflow/tfjs';
import type { ModelConfig } from './config.js';
import { applyRope, batchMatMul, embed, type RopeTables, rmsNorm, silu } from './layers.js';

/**
 * One decoder layer's weights. Linear weights are stored [in, out] (transposed from the Hugging Face [out, in]) so
 * products need no transposed matMul; q/k/v and gate/up are fused column-wise into one product each.
 */
export interface LayerWeights {
  inputNorm: tf.Variable<tf.Rank.R1>;
  qkv: tf.Variable<tf.Rank.R2>;
  qkvBias?: tf.Variable<tf.Rank.R1>;
  o: tf.Variable<tf.Rank.R2>;
  qNorm?: tf.Variable<tf.Rank.R1>;
  kNorm?: tf.Variable<tf.Rank.R1>;
  postNorm: tf.Variable<tf.Rank.R1>;
  gateUp: tf.Variable<tf.Rank.R2>;
  down: tf.Variable<tf.Rank.R2>;
}

/** All weights of a decoder; `lmHead` ([d, vocab]) is absent when the head is tied to the embedding. */
export interface DecoderWeights {
  embedding: tf.Variable<tf.Rank.R2>;
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
  /** Additive mask, 0 where a query may attend a key and MASKED otherwise, broadcastable to [b, 1, 1, t, len]. */
  mask: tf.Tensor;
  /** Keys and values of earlier tokens, one per layer (KV-cache decoding). */
  cache?: LayerCache[];
}

/** Added to the scores of forbidden keys: exp underflows to exactly 0, and a fully masked row stays finite. */
export const MASKED = -1e9;

function attention(
  x: tf.Tensor2D,
  layer: LayerWeights,
  config: ModelConfig,
  shape: [number, number],
  context: AttentionContext,
  past: LayerCache | undefined,
): { out: tf.Tensor2D; cache: LayerCache } {
  const [b, t] = shape;
  const { numHeads: h, numKvHeads: hkv, headDim: dh } = config;
  const group = h / hkv;
  let qkv = matMul2d(x, layer.qkv);
  if (layer.qkvBias) qkv = tf.add(qkv, layer.qkvBias);
  const [qFlat, kFlat, vFlat] = tf.split(qkv, [h * dh, hkv * dh, hkv * dh], 1);
  let q = tf.reshape(qFlat!, [b, t, h, dh]);
  let k = tf.reshape(kFlat!, [b, t, hkv, dh]);
  if (layer.qNorm && layer.kNorm) {
    q = rmsNorm(q, layer.qNorm, config.rmsNormEps);
    k = rmsNorm(k, layer.kNorm, config.rmsNormEps);
  }
  q = applyRope(q, context.rope);
  k = applyRope(k, context.rope);
  // Grouped-query attention without repeating K and V: the `group` query heads sharing a KV head are stacked
  // along the row axis, so one [group * t, dh] x [dh, len] product per (batch, KV head) serves them all.
  const qGrouped = tf.reshape(
    tf.transpose(tf.reshape(tf.mul(q, 1 / Math.sqrt(dh)), [b, t, hkv, group, dh]), [0, 2, 3, 1, 4]),
    [b * hkv, group * t, dh],
  ) as tf.Tensor3D;
  let keysT = tf.reshape(tf.transpose(k, [0, 2, 3, 1]), [b * hkv, dh, t]) as tf.Tensor3D;
  let values = tf.reshape(tf.transpose(tf.reshape(vFlat!, [b, t, hkv, dh]), [0, 2, 1, 3]), [b * hkv, t, dh]);
  if (past) {
    keysT = tf.concat([past.keysT, keysT], 2);
    values = tf.concat([past.values, values], 1);
  }
  const len = keysT.shape[2];
  const scores = tf.add(tf.reshape(batchMatMul(qGrouped, keysT), [b, hkv, group, t, len]), context.mask);
  const probs = tf.reshape(tf.softmax(scores), [b * hkv, group * t, len]) as tf.Tensor3D;
  const mixed = batchMatMul(probs, values as tf.Tensor3D);
  const merged = tf.reshape(tf.transpose(tf.reshape(mixed, [b, hkv, group, t, dh]), [0, 3, 1, 2, 4]), [
    b * t,
    h * dh,
  ]);
  return { out: matMul2d(merged as tf.Tensor2D, layer.o), cache: { keysT, values: values as tf.Tensor3D } };
}

function mlp(x: tf.Tensor2D, layer: LayerWeights, intermediate: number): tf.Tensor2D {
  const [gate, up] = tf.split(matMul2d(x, layer.gateUp), [intermediate, intermediate], 1);
  return matMul2d(tf.mul(silu(gate!), up!) as tf.Tensor2D, layer.down);
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
  const cache: LayerCache[] = [];
  weights.layers.forEach((layer, i) => {
    const normed = rmsNorm(h, layer.inputNorm, config.rmsNormEps);
    const { out, cache: layerCache } = attention(normed, layer, config, [b, t], context, context.cache?.[i]);
    cache.push(layerCache);
    h = tf.add(h, out);
    h = tf.add(h, mlp(rmsNorm(h, layer.postNorm, config.rmsNormEps), layer, config.intermediateSize));
  });
  return { hidden: rmsNorm(h, weights.norm, config.rmsNormEps), cache };
}

/** The output head as a [d, vocab] matrix: the untied head, or the transposed embedding. */
export function headMatrix(weights: DecoderWeights): tf.Tensor2D {
  return weights.lmHead ?? tf.transpose(weights.embedding);
}

/** Additive causal mask for t queries at the end of len keys, [1, 1, 1, t, len]. */
export function causalMask(t: number, len: number): tf.Tensor {
  const values = new Float32Array(t * len);
  for (let i = 0; i < t; i++) for (let j = len - t + i + 1; j < len; j++) values[i * len + j] = MASKED;
  return tf.tensor(values, [1, 1, 1, t, len]);
}
