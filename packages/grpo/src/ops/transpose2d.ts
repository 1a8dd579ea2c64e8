import * as tf from '@tensorflow/tfjs';

/** Row blocks tried by `transpose2d`, largest first. */
const ROW_BLOCKS = [128, 64, 32, 16, 8];

/**
 * x [r, c] -> x^T. wasm's 2-D Transpose walks a tall matrix with a cache-unfriendly stride; viewed as
 * [r / B, B, c] and transposed to [c, r / B, B], the same result costs 2-3x less there
 * (docs/benchmarks/models.md). Wide or small matrices take the plain transpose.
 */
export function transpose2d(x: tf.Tensor2D): tf.Tensor2D {
  const [rows, cols] = x.shape;
  const block = rows > cols ? ROW_BLOCKS.find((b) => rows % b === 0 && rows > b) : undefined;
  if (block === undefined) return tf.transpose(x);
  return tf.reshape(tf.transpose(tf.reshape(x, [rows / block, block, cols]), [2, 0, 1]), [cols, rows]);
}
