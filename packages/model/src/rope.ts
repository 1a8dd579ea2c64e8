import * as tf from '@tensorflow/tfjs';
import type { CustomGradientFunc, SaveFn } from './custom-op.js';

/** Cosine and sine tables for rotate-half RoPE, each [..., headDim], to broadcast against [.., heads, headDim]. */
export interface RopeTables {
  cos: tf.Tensor;
  sin: tf.Tensor;
}

/**
 * RoPE angles for the given positions (Su et al. 2021, RoFormer; the rotate-half layout of Hugging Face's
 * Llama/Qwen). The frequencies and angles are rounded to float32 as transformers and vLLM compute them, so a
 * loaded checkpoint sees the rotations it was trained with even at large positions.
 * Returns tables of shape [...shape, 1, headDim] for positions laid out as `shape`.
 */
export function ropeTables(
  positions: Int32Array,
  shape: number[],
  headDim: number,
  theta: number,
): RopeTables {
  const half = headDim / 2;
  const invFreq = new Float32Array(half);
  for (let i = 0; i < half; i++) invFreq[i] = 1 / Math.fround(theta ** Math.fround((2 * i) / headDim));
  const cos = new Float32Array(positions.length * headDim);
  const sin = new Float32Array(positions.length * headDim);
  for (let p = 0; p < positions.length; p++) {
    for (let i = 0; i < half; i++) {
      const angle = Math.fround(positions[p]! * invFreq[i]!);
      const c = Math.cos(angle);
      const s = Math.sin(angle);
      cos[p * headDim + i] = c;
      cos[p * headDim + i + half] = c;
      sin[p * headDim + i] = s;
      sin[p * headDim + i + half] = s;
    }
  }
  const tableShape = [...shape, 1, headDim];
  return { cos: tf.tensor(cos, tableShape), sin: tf.tensor(sin, tableShape) };
}

/** R with x R = rotateHalf(x) = concat(-x2, x1) for rows x = [x1, x2] of width dim; R^T = -R. */
function rotateHalfMatrix(dim: number, sign: 1 | -1): tf.Tensor2D {
  const half = dim / 2;
  const r = new Float32Array(dim * dim);
  for (let i = 0; i < half; i++) {
    r[(i + half) * dim + i] = -sign;
    r[i * dim + i + half] = sign;
  }
  return tf.tensor2d(r, [dim, dim]);
}

/** rows [n, dim] times the signed permutation that rotates halves: sign 1 gives rotateHalf, -1 its transpose. */
function rotateRows(x: tf.Tensor, sign: 1 | -1): tf.Tensor {
  const dim = x.shape[x.rank - 1]!;
  return tf.reshape(tf.matMul(tf.reshape(x, [-1, dim]) as tf.Tensor2D, rotateHalfMatrix(dim, sign)), x.shape);
}

/**
 * Applies rotate-half RoPE to x [..., heads, headDim]: y = x * cos + rotateHalf(x) * sin. rotateHalf is a product
 * with a signed permutation matrix R: one 2-D matMul is far cheaper on wasm than the split / negate / concat it
 * replaces, and exact (each output is one input times +-1). Gradient: dx = dy * cos + (dy * sin) R^T.
 */
export function applyRope<T extends tf.Tensor>(x: T, tables: RopeTables): T {
  const op = tf.customGrad(((input: tf.Tensor, save: SaveFn) => {
    save([tables.cos, tables.sin]);
    return {
      value: tf.add(tf.mul(input, tables.cos), tf.mul(rotateRows(input, 1), tables.sin)),
      gradFunc: (dy: tf.Tensor, [cos, sin]: tf.Tensor[]) =>
        tf.add(tf.mul(dy, cos!), rotateRows(tf.mul(dy, sin!), -1)),
    };
  }) as unknown as CustomGradientFunc) as (input: tf.Tensor) => tf.Tensor;
  return op(x) as T;
}
