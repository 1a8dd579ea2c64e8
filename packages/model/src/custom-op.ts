import type * as tf from '@tensorflow/tfjs';

/** The `save` callback tf.customGrad passes to a forward function. */
export type SaveFn = (tensors: tf.Tensor[]) => void;

/** tf.customGrad's argument type; forward functions are cast to it (its declared type admits no typed inputs). */
export type CustomGradientFunc = Parameters<typeof tf.customGrad>[0];
