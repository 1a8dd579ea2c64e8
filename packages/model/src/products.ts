import * as tf from '@tensorflow/tfjs';
import type { CustomGradientFunc, SaveFn } from './custom-op.js';

// Matrix products that avoid the slow paths of tfjs's wasm backend (PLATFORM.md, docs/models.md "Speed"):
// matMul's default gradient uses transposed matMuls (a scalar loop on wasm, ~10x slower), so 2-D products use
// @taorl/grpo's matMul2d and the products here have custom gradients that transpose explicitly;
// batched matMul is a scalar loop too, so attention products run as depthwise convolutions.

const transposeLast = (x: tf.Tensor3D) => tf.transpose(x, [0, 2, 1]);

/** a [n, m, k] times b [n, k, p], with the same untransposed gradient scheme as matMul2d. */
export const batchMatMul = tf.customGrad(((a: tf.Tensor3D, b: tf.Tensor3D, save: SaveFn) => {
  save([a, b]);
  return {
    value: tf.matMul(a, b),
    gradFunc: (dy: tf.Tensor3D, [as, bs]: tf.Tensor[]) => [
      tf.matMul(dy, transposeLast(bs as tf.Tensor3D)),
      tf.matMul(transposeLast(as as tf.Tensor3D), dy),
    ],
  };
}) as unknown as CustomGradientFunc) as (a: tf.Tensor3D, b: tf.Tensor3D) => tf.Tensor3D;

/** y[i, c, j] = sum_d x[i, d, c] w[d, c, j], as one depthwise convolution (see `channelProduct`). */
function depthwiseProduct(x: tf.Tensor3D, w: tf.Tensor3D): tf.Tensor3D {
  const [m, k, n] = x.shape;
  const p = w.shape[2];
  const input = tf.reshape(x, [1, m, k, n]) as tf.Tensor4D;
  const out = tf.depthwiseConv2d(input, tf.reshape(w, [1, k, n, p]) as tf.Tensor4D, 1, 'valid');
  return tf.reshape(out, [m, n, p]);
}

/**
 * A batch of n products, one per channel c: x [m, n, k], w [k, n, p] -> y [m, n, p] with
 * y[i, c, j] = sum_d x[i, c, d] w[d, c, j]. It runs as a depthwise convolution (input 1 x m x k x n, filter
 * 1 x k x n x p, channel multiplier p), which the wasm backend hands to XNNPACK's GEMM kernels, while its batched
 * matMul is a scalar loop: 3-5x faster for attention-sized products, equal up to float32 summation order
 * (docs/benchmarks/models.md). Gradients are two more such products:
 * dx[i, c, d] = sum_j dy[i, c, j] w[d, c, j] and dw[d, c, j] = sum_i x[i, c, d] dy[i, c, j]; x and dx share the
 * [m, n, k] layout of a softmax over the last axis, so attention probabilities enter without a transpose of their own.
 */
export const channelProduct = tf.customGrad(((x: tf.Tensor3D, w: tf.Tensor3D, save: SaveFn) => {
  save([x, w]);
  return {
    value: depthwiseProduct(tf.transpose(x, [0, 2, 1]), w),
    gradFunc: (dy: tf.Tensor3D, [xs, ws]: tf.Tensor[]) => [
      depthwiseProduct(tf.transpose(dy, [0, 2, 1]), tf.transpose(ws as tf.Tensor3D, [2, 1, 0])),
      depthwiseProduct(tf.transpose(xs as tf.Tensor3D, [2, 0, 1]), dy),
    ],
  };
}) as unknown as CustomGradientFunc) as (x: tf.Tensor3D, w: tf.Tensor3D) => tf.Tensor3D;
