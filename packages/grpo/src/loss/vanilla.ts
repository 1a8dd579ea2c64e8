import { noOptions } from '@taorl/plugin-registry';
import * as tf from '@tensorflow/tfjs';
import { clampedLogRatio } from './log-ratio';
import { maskedFraction } from './masked-mean';
import { type PolicyLossContext, type PolicyLossTerms, policyLossRegistry } from './policy-loss-registry';

/**
 * The clipped surrogate of PPO as GRPO uses it (verl core_algos.py compute_policy_loss_vanilla; dual clip from
 * Ye et al. 2020, arXiv 1912.09729; clip-higher from DAPO, arXiv 2503.14476):
 *   rho = exp(clamp(logp - logp_old, -b, b))
 *   L = max(-A rho, -A clip(rho, 1 - eps_low, 1 + eps_high)); for A < 0, L = min(L, -A c).
 * Metrics: clipFractionLow (A < 0, the lower bound binds), clipFractionHigh (A > 0, the upper bound binds),
 * dualClipFraction (A < 0, the dual clip binds), each over loss tokens.
 */
export function vanillaPolicyLoss({
  logProbs,
  oldLogProbs,
  advantages,
  lossMask,
  config,
}: PolicyLossContext): PolicyLossTerms {
  return tf.tidy(() => {
    const ratio = tf.exp(clampedLogRatio(logProbs, oldLogProbs, config.logRatioBound));
    const negativeAdvantage = tf.neg(advantages);
    const unclipped = tf.mul(negativeAdvantage, ratio);
    const clipped = tf.mul(negativeAdvantage, tf.clipByValue(ratio, 1 - config.clipLow, 1 + config.clipHigh));
    const surrogate = tf.maximum(unclipped, clipped);
    const clipBinds = tf.greater(clipped, unclipped);
    const isNegative = tf.less(advantages, 0);
    const metrics: Record<string, tf.Scalar> = {
      clipFractionLow: maskedFraction(tf.logicalAnd(clipBinds, isNegative), lossMask),
      clipFractionHigh: maskedFraction(tf.logicalAnd(clipBinds, tf.greater(advantages, 0)), lossMask),
    };
    if (config.dualClip === null) return { perToken: surrogate as tf.Tensor2D, metrics };
    const dualBound = tf.mul(negativeAdvantage, config.dualClip);
    metrics.dualClipFraction = maskedFraction(
      tf.logicalAnd(tf.greater(surrogate, dualBound), isNegative),
      lossMask,
    );
    const perToken = tf.where(isNegative, tf.minimum(surrogate, dualBound), surrogate) as tf.Tensor2D;
    return { perToken, metrics };
  });
}

policyLossRegistry.registerBuiltIn('vanilla', () => vanillaPolicyLoss, noOptions);
