import * as tf from '@tensorflow/tfjs';
import { transpose2d } from './transpose2d';

/**
 * a [m, k] x b [k, n] -> [m, n] with a gradient made of plain 2-D matMuls. tfjs's own matMul gradient calls
 * matMul with transposeA/transposeB, which the wasm backend runs as a scalar loop 10-50x slower than the
 * untransposed path; there the operands are transposed explicitly first (with {@link transpose2d}), so both backward
 * products stay on the fast kernel (docs/benchmarks/grpo.md). Backends with fast transposed products keep the flags and skip the copy.
 */
export const matMul2d: (a: tf.Tensor2D, b: tf.Tensor2D) => tf.Tensor2D = tf.customGrad(
  (...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const [a, b, save] = args as [tf.Tensor2D, tf.Tensor2D, tf.GradSaveFunc];
    save([a, b]);
    return {
      value: tf.matMul(a, b),
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
        const [savedA, savedB, upstream] = [
          saved[0] as tf.Tensor2D,
          saved[1] as tf.Tensor2D,
          dy as tf.Tensor2D,
        ];
        if (tf.getBackend() !== 'wasm') {
          return [tf.matMul(upstream, savedB, false, true), tf.matMul(savedA, upstream, true, false)];
        }
        return [tf.matMul(upstream, transpose2d(savedB)), tf.matMul(transpose2d(savedA), upstream)];
      },
    };
  },
) as (a: tf.Tensor2D, b: tf.Tensor2D) => tf.Tensor2D;

/**
 * A dense layer y = x W + b over the last axis of x [..., in] with W [in, out] and optional b [out], computed
 * with {@link matMul2d} on x flattened to 2-D (batched 3-D matMul is another slow path on wasm).
 */
export function linear(x: tf.Tensor, weight: tf.Tensor2D, bias?: tf.Tensor1D): tf.Tensor {
  const [inFeatures, outFeatures] = weight.shape;
  const lastAxis = x.shape[x.rank - 1];
  if (x.rank < 2 || lastAxis !== inFeatures) {
    throw new Error(
      `linear: x has shape [${x.shape.join(', ')}] but the weight expects a last axis of ${inFeatures} (x must be [..., in])`,
    );
  }
  if (bias !== undefined && bias.shape[0] !== outFeatures) {
    throw new Error(`linear: bias has length ${bias.shape[0]} but the weight has ${outFeatures} outputs`);
  }
  return tf.tidy(() => {
    const flat = x.rank === 2 ? (x as tf.Tensor2D) : (tf.reshape(x, [-1, inFeatures]) as tf.Tensor2D);
    const projected = matMul2d(flat, weight);
    const withBias = bias === undefined ? projected : tf.add(projected, bias);
    return x.rank === 2 ? withBias : tf.reshape(withBias, [...x.shape.slice(0, -1), outFeatures]);
  });
}
