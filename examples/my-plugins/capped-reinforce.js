// @ts-check
import { clampedLogRatio, maskedFraction, registerPolicyLoss, stopGradient } from '@taorl/grpo';
import * as tf from '@tensorflow/tfjs';
import { z } from 'zod';

/**
 * A policy loss: REINFORCE with the importance weight capped at `maxWeight` and held constant (as CISPO does, but
 * capped from above only), L_t = -sg(min(rho_t, maxWeight)) A_t log pi(t). Its own metric: the share of loss tokens
 * whose weight was capped.
 */
registerPolicyLoss(
  'capped-reinforce',
  ({ maxWeight }) =>
    ({ logProbs, oldLogProbs, advantages, lossMask, config }) =>
      tf.tidy(() => {
        const ratio = tf.exp(clampedLogRatio(logProbs, oldLogProbs, config.logRatioBound));
        const weight = stopGradient(tf.minimum(ratio, maxWeight));
        return {
          perToken: /** @type {tf.Tensor2D} */ (tf.neg(tf.mul(tf.mul(weight, advantages), logProbs))),
          metrics: { cappedFraction: maskedFraction(tf.greater(ratio, maxWeight), lossMask) },
        };
      }),
  { schema: z.strictObject({ maxWeight: z.number().gt(1).default(2) }) },
);
