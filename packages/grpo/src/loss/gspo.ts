import { noOptions } from '@taorl/plugin-registry';
import * as tf from '@tensorflow/tfjs';
import { stopGradient } from '../ops/stop-gradient';
import { maskedFraction, maskedMean } from './masked-mean';
import { type PolicyLossContext, type PolicyLossTerms, policyLossRegistry } from './policy-loss-registry';

/** verl clamps the sequence log-ratio above at 10 before exp (core_algos.py compute_policy_loss_gspo). */
const SEQUENCE_LOG_RATIO_MAX = 10;

/**
 * GSPO (Zheng et al. 2025, arXiv 2507.18071; verl's policy loss `gspo`, volcengine/verl@b178a3c
 * verl/trainer/ppo/core_algos.py): the importance ratio of a whole response,
 *   s_i = exp(mean over the response's loss tokens of (log pi - log pi_old)),
 * clipped to [1 - eps_low, 1 + eps_high] with narrow bounds (defaults 3e-4 and 4e-4, the paper's section 5.1 and
 * verl's examples/gspo_trainer), and aggregated per sequence (seq-mean-token-mean, which the loss requires).
 * As verl's GSPO-token form, each token carries s_i,t = sg(s_i) pi_t / sg(pi_t): its value is s_i, and with one
 * advantage per response its gradient is the sequence-level GSPO gradient. No dual clip (config.dualClip is
 * ignored). Metrics: clipFractionLow / clipFractionHigh (the clip binds with A < 0 / A > 0, over loss tokens),
 * sequenceRatio (mean of s_i over loss tokens).
 */
export function gspoLoss({
  logProbs,
  oldLogProbs,
  advantages,
  lossMask,
  config,
  sequenceMean,
}: PolicyLossContext): PolicyLossTerms {
  return tf.tidy(() => {
    const sequenceLogRatio = stopGradient(sequenceMean(tf.sub(logProbs, oldLogProbs) as tf.Tensor2D));
    const logRatio = tf.minimum(
      tf.add(tf.sub(logProbs, stopGradient(logProbs)), sequenceLogRatio),
      SEQUENCE_LOG_RATIO_MAX,
    );
    const ratio = tf.exp(logRatio);
    const negativeAdvantage = tf.neg(advantages);
    const unclipped = tf.mul(negativeAdvantage, ratio);
    const clipped = tf.mul(negativeAdvantage, tf.clipByValue(ratio, 1 - config.clipLow, 1 + config.clipHigh));
    const clipBinds = tf.greater(clipped, unclipped);
    return {
      perToken: tf.maximum(unclipped, clipped) as tf.Tensor2D,
      metrics: {
        clipFractionLow: maskedFraction(tf.logicalAnd(clipBinds, tf.less(advantages, 0)), lossMask),
        clipFractionHigh: maskedFraction(tf.logicalAnd(clipBinds, tf.greater(advantages, 0)), lossMask),
        sequenceRatio: maskedMean(ratio, lossMask),
      },
    };
  });
}

const gspo = Object.assign(gspoLoss, {
  traits: { clipLow: 3e-4, clipHigh: 4e-4, aggregation: 'seq-mean-token-mean' },
} as const);

policyLossRegistry.registerBuiltIn('gspo', () => gspo, noOptions);
