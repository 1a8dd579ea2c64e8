import { transpose2d } from '@taorl/grpo';
import * as tf from '@tensorflow/tfjs';
import type { CustomGradientFunc, SaveFn } from './custom-op.js';

// The decoder's token embedding and element-wise blocks (RMSNorm, SwiGLU).

/** Vocabularies up to this size embed by one-hot product; larger ones (real Qwen, 151k) by gather. */
const ONE_HOT_MAX_VOCAB = 4096;

/** Token embeddings: ids [n] int32, table [vocab, d] -> [n, d]. */
export function embed(ids: tf.Tensor1D, table: tf.Tensor2D): tf.Tensor2D {
  const vocab = table.shape[0];
  if (vocab > ONE_HOT_MAX_VOCAB) return tf.gather(table, ids);
  // A float32 tf.oneHot is silently wrong on wasm (PLATFORM.md): build it as int32 and cast.
  const oneHot = tf.cast(tf.oneHot(ids, vocab, 1, 0, 'int32'), 'float32') as tf.Tensor2D;
  const op = tf.customGrad(((w: tf.Tensor2D, save: SaveFn) => {
    save([oneHot]);
    return {
      value: tf.matMul(oneHot, w),
      gradFunc: (dy: tf.Tensor2D, [h]: tf.Tensor[]) => tf.matMul(transpose2d(h as tf.Tensor2D), dy),
    };
  }) as unknown as CustomGradientFunc) as (w: tf.Tensor2D) => tf.Tensor2D;
  return op(table);
}

// The element-wise blocks below (and RoPE in rope.ts) are custom ops with hand-derived gradients. Each primitive op on the
// autodiff tape keeps a copy of the tensors its gradient needs (tfjs clones them; on wasm a clone is a memcpy), so a
// block written as 5-10 primitives copies several activations per step; as one op it saves only its inputs.

/**
 * RMSNorm over the last axis (Zhang & Sennrich 2019; Qwen's form): y = x * r * w with
 * r = (mean(x^2) + eps)^(-1/2). weight has the shape of x's trailing axes ([d], or [heads, d] for per-head norms).
 * Gradient, with g = dy * w: dx = r * (g - x * r^2 * mean(g * x)), dw = sum over leading axes of dy * x * r.
 */
export function rmsNorm<T extends tf.Tensor>(x: T, weight: tf.Tensor, eps: number): T {
  const op = tf.customGrad(((input: tf.Tensor, w: tf.Tensor, save: SaveFn) => {
    const r = tf.rsqrt(tf.add(tf.mean(tf.square(input), -1, true), eps));
    save([input, w, r]);
    return {
      value: tf.mul(tf.mul(input, r), w),
      gradFunc: (dy: tf.Tensor, [xs, ws, rs]: tf.Tensor[]) => {
        const g = tf.mul(dy, ws!);
        const projection = tf.mul(tf.square(rs!), tf.mean(tf.mul(g, xs!), -1, true));
        const dx = tf.mul(rs!, tf.sub(g, tf.mul(xs!, projection)));
        // Sum over the leading axes as ones [1, n] x rows [n, w]: wasm reduces a leading axis by transposing
        // first (a tall 2-D transpose, several times the cost of this product).
        const rows = tf.reshape(tf.mul(dy, tf.mul(xs!, rs!)), [-1, ws!.size]) as tf.Tensor2D;
        const dw = tf.reshape(tf.matMul(tf.ones([1, rows.shape[0]]), rows), ws!.shape);
        return [dx, dw];
      },
    };
  }) as unknown as CustomGradientFunc) as (input: tf.Tensor, w: tf.Tensor) => tf.Tensor;
  return op(x, weight) as T;
}

/**
 * The SwiGLU activation (Shazeer 2020): silu(gate) * up with silu(x) = x * sigmoid(x). Gradient, with
 * s = sigmoid(gate): d gate = dy * up * s * (1 + gate * (1 - s)), d up = dy * gate * s.
 */
export const swiGlu = tf.customGrad(((gate: tf.Tensor2D, up: tf.Tensor2D, save: SaveFn) => {
  save([gate, up]);
  return {
    value: tf.mul(tf.mul(gate, tf.sigmoid(gate)), up),
    gradFunc: (dy: tf.Tensor2D, [g, u]: tf.Tensor[]) => {
      const s = tf.sigmoid(g!);
      const dGate = tf.mul(tf.mul(dy, u!), tf.mul(s, tf.add(1, tf.mul(g!, tf.sub(1, s)))));
      return [dGate, tf.mul(dy, tf.mul(g!, s))];
    },
  };
}) as unknown as CustomGradientFunc) as (gate: tf.Tensor2D, up: tf.Tensor2D) => tf.Tensor2D;
