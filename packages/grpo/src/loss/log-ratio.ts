import * as tf from '@tensorflow/tfjs';

/**
 * log(pi / pi_old) per token, clamped to +-bound before anything exponentiates it (verl clamps the same way): one
 * token whose log-probabilities drifted far apart cannot overflow the ratio or swamp a mean.
 */
export function clampedLogRatio(logProbs: tf.Tensor, oldLogProbs: tf.Tensor, bound: number): tf.Tensor {
  return tf.tidy(() => tf.clipByValue(tf.sub(logProbs, oldLogProbs), -bound, bound));
}
