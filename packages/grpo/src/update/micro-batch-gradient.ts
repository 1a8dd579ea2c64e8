import * as tf from '@tensorflow/tfjs';
import { tokenLogProbsAndEntropy } from '../logprobs/token-log-probs';
import { policyLoss } from '../loss/policy-loss';
import type { ResolvedPolicyLossConfig } from '../loss/policy-loss-config';
import type { TargetAlignedBatch } from './update-batch';

/**
 * The policy: token ids [B, T] (int32) to next-token logits [B, T, V]. For packed rows it also receives the
 * sequence id of every token [B, T] (int32, negative = padding) to keep attention inside each sequence.
 */
export type PolicyModel = (tokens: tf.Tensor2D, sequenceIds?: tf.Tensor2D) => tf.Tensor3D;

/**
 * One micro-batch of an optimizer step: its rows, aligned to targets, and their aggregation weights computed over
 * the whole mini-batch, so the micro-batches' losses and gradients add up to the mini-batch's.
 */
export interface MicroBatch {
  batch: TargetAlignedBatch;
  tokenWeights: Float32Array;
}

/** What a micro-batch's loss depends on besides the weights; plain data, so a worker thread can receive it. */
export interface GradientSettings {
  loss: ResolvedPolicyLossConfig;
  /** The rollouts' sampling temperature, applied to the logits. */
  temperature: number;
  /** Token positions per chunk of the log-softmax (tokenLogProbsAndEntropy's chunkTokens). */
  chunkTokens?: number;
}

/**
 * A micro-batch's loss gradient, one entry per variable in order (null where the loss does not reach the
 * variable), and its metrics: the policyLoss metrics and `loss`, read out as numbers.
 */
export interface MicroBatchGradient<Gradient = tf.Tensor> {
  gradients: (Gradient | null)[];
  metrics: Record<string, number>;
}

/** log pi_theta and entropy of a batch's aligned targets under the model's current weights. */
export function targetLogProbs(
  model: PolicyModel,
  batch: TargetAlignedBatch,
  settings: Pick<GradientSettings, 'temperature' | 'chunkTokens'>,
): { logProbs: tf.Tensor2D; entropy: tf.Tensor2D } {
  const shape: [number, number] = [batch.rows, batch.columns];
  const inputs = tf.tensor2d(batch.inputs, shape, 'int32');
  const sequenceIds =
    batch.inputSequenceIds === undefined ? undefined : tf.tensor2d(batch.inputSequenceIds, shape, 'int32');
  const logits = model(inputs, sequenceIds);
  const vocab = logits.shape[2];
  const outOfRange = batch.targets.findIndex((token) => token >= vocab);
  if (outOfRange >= 0) {
    throw new Error(
      `GrpoUpdater.update: token id ${batch.targets[outOfRange]} is outside the model's vocabulary of ${vocab}`,
    );
  }
  return tokenLogProbsAndEntropy(logits, tf.tensor2d(batch.targets, shape, 'int32'), {
    temperature: settings.temperature,
    chunkTokens: settings.chunkTokens,
  });
}

/**
 * The policy-loss gradient of one micro-batch (the caller disposes the gradients). GrpoUpdater runs it for each
 * micro-batch of a step, on this thread or, through its `microBatchGradients` option, on replicas of the model
 * elsewhere: the same function wherever it runs, so the results are the same.
 */
export async function microBatchGradient(
  model: PolicyModel,
  variables: readonly tf.Variable[],
  micro: MicroBatch,
  settings: GradientSettings,
): Promise<MicroBatchGradient> {
  const { batch } = micro;
  const shape: [number, number] = [batch.rows, batch.columns];
  let metrics: Record<string, tf.Scalar> = {};
  const { value, grads } = tf.variableGrads(() => {
    const { logProbs, entropy } = targetLogProbs(model, batch, settings);
    const result = policyLoss(
      {
        logProbs,
        entropy,
        oldLogProbs: tf.tensor2d(batch.oldLogProbs!, shape),
        advantages: tf.tensor2d(batch.advantages, shape),
        lossMask: tf.tensor2d(batch.lossMask, shape),
        refLogProbs: batch.refLogProbs === undefined ? undefined : tf.tensor2d(batch.refLogProbs, shape),
        tokenWeights: tf.tensor2d(micro.tokenWeights, shape),
        importanceWeights:
          batch.importanceWeights === undefined ? undefined : tf.tensor2d(batch.importanceWeights, shape),
        sequenceIds: batch.targetSequenceIds,
      },
      settings.loss,
    );
    // The metrics outlive the gradient scope, which disposes everything the loss function does not return.
    metrics = Object.fromEntries(
      Object.entries(result.metrics).map(([name, scalar]) => [name, tf.keep(scalar)]),
    );
    return result.loss;
  }, variables as tf.Variable[]);
  metrics.loss = value;
  const names = Object.keys(metrics);
  const stacked = tf.stack(names.map((name) => metrics[name]!));
  const values = await stacked.data();
  tf.dispose([stacked, ...Object.values(metrics)]);
  return {
    gradients: variables.map((variable) => grads[variable.name] ?? null),
    metrics: Object.fromEntries(names.map((name, index) => [name, values[index]!])),
  };
}
