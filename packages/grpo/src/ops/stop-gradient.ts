import * as tf from '@tensorflow/tfjs';

/** The identity with a zero gradient (torch's detach), which tfjs does not offer as an op. */
export const stopGradient: <T extends tf.Tensor>(x: T) => T = tf.customGrad(
  (...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const x = args[0] as tf.Tensor;
    return { value: tf.clone(x), gradFunc: (dy: tf.Tensor) => tf.zerosLike(dy) };
  },
) as <T extends tf.Tensor>(x: T) => T;
