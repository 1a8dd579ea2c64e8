import { noOptions } from '@taorl/plugin-registry';
import * as tf from '@tensorflow/tfjs';
import { stopGradient } from '../ops/stop-gradient';
import { clampedLogRatio } from './log-ratio';
import { maskedFraction } from './masked-mean';
import { type PolicyLossContext, type PolicyLossTerms, policyLossRegistry } from './policy-loss-registry';

/**
 * CISPO (MiniMax-M1, arXiv 2506.13585): clip the importance-sampling weight, not the update, so every token
 * keeps a gradient: L = -sg(clip(rho, 1 - eps_low, 1 + eps_high)) A log pi. Registered as `cispo`, mostly as the
 * model of a user-registered loss; the paper leaves the lower bound open (set clipLow near 1 for that).
 */
export function cispoLoss({
  logProbs,
  oldLogProbs,
  advantages,
  lossMask,
  config,
}: PolicyLossContext): PolicyLossTerms {
  return tf.tidy(() => {
    const ratio = tf.exp(clampedLogRatio(logProbs, oldLogProbs, config.logRatioBound));
    const weight = stopGradient(tf.clipByValue(ratio, 1 - config.clipLow, 1 + config.clipHigh));
    const perToken = tf.neg(tf.mul(tf.mul(weight, advantages), logProbs)) as tf.Tensor2D;
    return {
      perToken,
      metrics: {
        clipFractionLow: maskedFraction(tf.less(ratio, 1 - config.clipLow), lossMask),
        clipFractionHigh: maskedFraction(tf.greater(ratio, 1 + config.clipHigh), lossMask),
      },
    };
  });
}

policyLossRegistry.registerBuiltIn('cispo', () => cispoLoss, noOptions);
