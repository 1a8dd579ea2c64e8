import * as tf from '@tensorflow/tfjs';

/** Mean of x over the positions where mask is 1 (0 when the mask is empty); a diagnostic, not a loss. */
export function maskedMean(x: tf.Tensor, mask: tf.Tensor): tf.Scalar {
  return tf.tidy(() => tf.div(tf.sum(tf.mul(x, mask)), tf.maximum(tf.sum(mask), 1)) as tf.Scalar);
}

/** Fraction of loss tokens where `condition` holds. */
export function maskedFraction(condition: tf.Tensor, mask: tf.Tensor): tf.Scalar {
  return tf.tidy(() => maskedMean(tf.cast(condition, 'float32'), mask));
}
