import * as tf from '@tensorflow/tfjs';
import { type AggregationOptions, aggregationWeights, type LossAggregation } from './aggregation';

export interface SftLossInput {
  /** log pi_theta of the target tokens [B, T], differentiable. */
  logProbs: tf.Tensor2D;
  /** 1 on assistant text and code, 0 on the prompt and tool output (ALGORITHMS.md section 6). */
  lossMask: tf.Tensor2D;
  /** Aggregation weights over a larger batch, as in policyLoss; replace `aggregation`. */
  tokenWeights?: tf.Tensor2D;
}

/** Masked cross-entropy: -sum_t w_t log pi(target_t), w from the aggregation mode (default token-mean). */
export function sftLoss(
  input: SftLossInput,
  options: AggregationOptions & { aggregation?: LossAggregation } = {},
): tf.Scalar {
  const [rows, columns] = input.logProbs.shape;
  for (const [name, tensor] of [
    ['lossMask', input.lossMask],
    ['tokenWeights', input.tokenWeights],
  ] as const) {
    if (tensor !== undefined && (tensor.shape[0] !== rows || tensor.shape[1] !== columns)) {
      throw new Error(
        `sftLoss: input.${name} has shape [${tensor.shape.join(', ')}], expected [${rows}, ${columns}]`,
      );
    }
  }
  const weightData =
    input.tokenWeights === undefined
      ? aggregationWeights(
          { rows, columns, lossMask: input.lossMask.dataSync() },
          options.aggregation ?? 'token-mean',
          options,
        )
      : undefined;
  return tf.tidy(() => {
    const weights = input.tokenWeights ?? tf.tensor2d(weightData!, [rows, columns]);
    return tf.neg(tf.sum(tf.mul(input.logProbs, weights))) as tf.Scalar;
  });
}
