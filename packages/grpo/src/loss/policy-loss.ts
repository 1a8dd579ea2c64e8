import * as tf from '@tensorflow/tfjs';
import { assertFinite } from '../validate/finite';
import { aggregationWeights } from './aggregation';
import { klPenalty } from './kl-penalty';
import { clampedLogRatio } from './log-ratio';
import { maskedMean } from './masked-mean';
import { type PolicyLossConfig, resolvePolicyLossConfig } from './policy-loss-config';
import { getPolicyLoss } from './policy-loss-registry';
import { sequenceMeanOp } from './sequence-mean';

/** Inputs of {@link policyLoss}, all [B, T] and aligned token by token. */
export interface PolicyLossInput {
  /** log pi_theta of the sampled tokens, differentiable (from tokenLogProbsAndEntropy). */
  logProbs: tf.Tensor2D;
  /** log pi_old, fixed during the PPO epochs. */
  oldLogProbs: tf.Tensor2D;
  /** Per-token advantages; must be finite everywhere. */
  advantages: tf.Tensor2D;
  /** 1 for tokens the policy generated and is trained on, 0 for prompt, tool output and padding. */
  lossMask: tf.Tensor2D;
  /** Per-token entropy of pi_theta (differentiable), for the entropy term and the entropy metric. */
  entropy?: tf.Tensor2D;
  /** log pi_ref, required when klCoef > 0. */
  refLogProbs?: tf.Tensor2D;
  /**
   * Aggregation weights (aggregationWeights) computed over a larger batch this one is a slice of; they replace
   * config.aggregation so that micro-batch losses add up to the mini-batch loss.
   */
  tokenWeights?: tf.Tensor2D;
  /**
   * Per-token factors of the policy-gradient term, constant: the rollout correction's truncated importance
   * weights (rolloutCorrection), as verl multiplies pg_losses by rollout_is_weights. The KL and entropy terms are
   * not weighted. Default: 1 everywhere.
   */
  importanceWeights?: tf.Tensor2D;
  /**
   * Packed rows: the sequence index of every position, row-major [B, T] (negative = padding), for the losses that
   * work per sequence (gspo). Omitted: each row is one sequence.
   */
  sequenceIds?: ArrayLike<number>;
}

export interface PolicyLossResult {
  /** pgLoss + klCoef x kl - entropyCoef x entropy, each aggregated with the same token weights. */
  loss: tf.Scalar;
  /**
   * Scalars: pgLoss (aggregated surrogate), approxKl (mean of logp_old - logp with the log-ratio clamped to
   * +-logRatioBound, verl's ppo_kl), meanRatio (of the clamped ratio),
   * the loss's own metrics (vanilla: clipFractionLow, clipFractionHigh, dualClipFraction), entropy when given,
   * kl when klCoef > 0. Means are over loss tokens.
   */
  metrics: Record<string, tf.Scalar>;
}

/**
 * The GRPO policy loss of one batch (ALGORITHMS.md section 5): the registered per-token loss named by
 * config.name, aggregated over loss tokens, plus the optional KL and entropy terms. Reads the loss mask and the
 * constant inputs once to validate them and to compute the aggregation weights.
 */
export function policyLoss(input: PolicyLossInput, config: PolicyLossConfig = {}): PolicyLossResult {
  const resolved = resolvePolicyLossConfig(config);
  const loss = getPolicyLoss(resolved.name, resolved.options);
  const [rows, columns] = input.logProbs.shape;
  checkShapes(input, rows, columns);
  assertFinite('policyLoss', 'advantages', input.advantages.dataSync(), columns);
  assertFinite('policyLoss', 'oldLogProbs', input.oldLogProbs.dataSync(), columns);
  if (resolved.klCoef > 0) {
    if (input.refLogProbs === undefined)
      throw new Error('policyLoss: config.klCoef > 0 needs input.refLogProbs');
    assertFinite('policyLoss', 'refLogProbs', input.refLogProbs.dataSync(), columns);
  }
  if (resolved.entropyCoef !== 0 && input.entropy === undefined) {
    throw new Error('policyLoss: config.entropyCoef is non-zero but input.entropy is missing');
  }
  const weightData =
    input.tokenWeights === undefined
      ? aggregationWeights({ rows, columns, lossMask: input.lossMask.dataSync() }, resolved.aggregation, {
          horizon: resolved.horizon,
        })
      : undefined;

  return tf.tidy(() => {
    const weights = input.tokenWeights ?? tf.tensor2d(weightData!, [rows, columns]);
    const lossMask = tf.cast(input.lossMask, 'float32') as tf.Tensor2D;
    const aggregate = (perToken: tf.Tensor): tf.Scalar => tf.sum(tf.mul(perToken, weights));
    const terms = loss({
      logProbs: input.logProbs,
      oldLogProbs: input.oldLogProbs,
      advantages: input.advantages,
      lossMask,
      config: resolved,
      sequenceMean: sequenceMeanOp(lossMask, input.sequenceIds),
    });
    const pgLoss = aggregate(
      input.importanceWeights === undefined
        ? terms.perToken
        : tf.mul(terms.perToken, input.importanceWeights),
    );
    const logRatio = clampedLogRatio(input.logProbs, input.oldLogProbs, resolved.logRatioBound);
    const metrics: Record<string, tf.Scalar> = {
      pgLoss,
      approxKl: maskedMean(tf.neg(logRatio), lossMask),
      meanRatio: maskedMean(tf.exp(logRatio), lossMask),
      ...terms.metrics,
    };
    let total: tf.Scalar = pgLoss;
    if (resolved.klCoef > 0) {
      const kl = aggregate(klPenalty(resolved.klKind)(input.logProbs, input.refLogProbs!));
      metrics.kl = kl;
      total = tf.add(total, tf.mul(kl, resolved.klCoef));
    }
    if (input.entropy !== undefined) {
      metrics.entropy = maskedMean(input.entropy, lossMask);
      if (resolved.entropyCoef !== 0)
        total = tf.sub(total, tf.mul(aggregate(input.entropy), resolved.entropyCoef));
    }
    return { loss: total, metrics };
  });
}

function checkShapes(input: PolicyLossInput, rows: number, columns: number): void {
  const named: [string, tf.Tensor | undefined][] = [
    ['logProbs', input.logProbs],
    ['oldLogProbs', input.oldLogProbs],
    ['advantages', input.advantages],
    ['lossMask', input.lossMask],
    ['entropy', input.entropy],
    ['refLogProbs', input.refLogProbs],
    ['tokenWeights', input.tokenWeights],
    ['importanceWeights', input.importanceWeights],
  ];
  for (const [name, tensor] of named) {
    if (
      tensor !== undefined &&
      (tensor.rank !== 2 || tensor.shape[0] !== rows || tensor.shape[1] !== columns)
    ) {
      throw new Error(
        `policyLoss: input.${name} has shape [${tensor.shape.join(', ')}], expected [${rows}, ${columns}] like logProbs`,
      );
    }
  }
}
