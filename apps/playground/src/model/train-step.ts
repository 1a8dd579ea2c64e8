import type { AdamW } from '@taorl/grpo';
import { shardGradient, type TransformerPolicy, type WeightedTokenBatch } from '@taorl/model';
import * as tf from '@tensorflow/tfjs';

/**
 * One training step of the policy on a batch: the batch's weighted cross-entropy and its gradient
 * (`shardGradient` of @taorl/model, what SFT computes per shard), then an AdamW step (@taorl/grpo) at
 * `learningRate`. The same function runs in the page's worker and in Node. Returns the loss.
 */
export function trainStep(
  policy: TransformerPolicy,
  optimizer: AdamW,
  batch: WeightedTokenBatch,
  learningRate: number,
): number {
  const { loss, gradients } = shardGradient(policy, policy.trainableVariables(), batch);
  optimizer.apply(gradients, learningRate);
  const value = loss.dataSync()[0] as number;
  tf.dispose([loss, ...gradients.filter((gradient) => gradient !== null)]);
  return value;
}
