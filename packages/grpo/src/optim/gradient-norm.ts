import * as tf from '@tensorflow/tfjs';

/** sqrt(sum of squares of every gradient entry), the norm torch.nn.utils.clip_grad_norm_ clips. */
export function globalGradientNorm(gradients: readonly (tf.Tensor | null)[]): tf.Scalar {
  return tf.tidy(() => {
    const squares = gradients.flatMap((gradient) => (gradient === null ? [] : [tf.sum(tf.square(gradient))]));
    return tf.sqrt(squares.length === 0 ? tf.scalar(0) : tf.addN(squares)) as tf.Scalar;
  });
}

/** The factor clip_grad_norm_ scales gradients by: min(1, maxNorm / (norm + 1e-6)). */
export function clipScale(norm: number, maxNorm: number): number {
  return Math.min(1, maxNorm / (norm + 1e-6));
}
