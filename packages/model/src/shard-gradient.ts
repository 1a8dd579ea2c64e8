import { sftLoss, tokenLogProbsAndEntropy } from '@taorl/grpo';
import * as tf from '@tensorflow/tfjs';
import type { Policy } from './policy.js';

/**
 * A right-padded batch ready for the loss: inputs, next-token targets, the targets' loss mask and each target's
 * aggregation weight, row-major over `shape` ([rows, width]). Plain typed arrays, so a batch can be posted to a
 * worker thread as it is.
 */
export interface WeightedTokenBatch {
  inputs: Int32Array;
  targets: Int32Array;
  /** 1 where the target token is trained on. */
  mask: Float32Array;
  /** The token-mean weight of each target: mask / (loss tokens of the whole step's batch). */
  weights: Float32Array;
  shape: [number, number];
}

export interface ShardGradient {
  /** -sum_t w_t log pi(target_t): this batch's share of the step's token-mean cross-entropy. */
  loss: tf.Scalar;
  /** d loss / d variable, one entry per variable in order; null for a variable the loss does not reach. */
  gradients: (tf.Tensor | null)[];
}

/**
 * The weighted cross-entropy of a batch (its weights from `weightedTokenBatch`) and its gradient. The same
 * function runs on the main thread and in every gradient worker, so shards are computed identically wherever they
 * run. The caller disposes the returned tensors.
 */
export function shardGradient(
  policy: Policy,
  variables: readonly tf.Variable[],
  batch: WeightedTokenBatch,
): ShardGradient {
  const { value, grads } = tf.variableGrads(() => {
    const logits = policy.logits(tf.tensor2d(batch.inputs, batch.shape, 'int32'));
    const { logProbs } = tokenLogProbsAndEntropy(logits, tf.tensor2d(batch.targets, batch.shape, 'int32'));
    return sftLoss({
      logProbs,
      lossMask: tf.tensor2d(batch.mask, batch.shape),
      tokenWeights: tf.tensor2d(batch.weights, batch.shape),
    });
  }, variables as tf.Variable[]);
  return { loss: value, gradients: variables.map((variable) => grads[variable.name] ?? null) };
}
