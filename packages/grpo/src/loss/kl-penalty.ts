import * as tf from '@tensorflow/tfjs';

/**
 * Per-token estimators of KL(pi || pi_ref) from d = log pi - log pi_ref (Schulman, "Approximating KL divergence",
 * 2020; verl core_algos.py kl_penalty):
 * - `k1` (`kl`): d
 * - `k2` (`mse`): d^2 / 2
 * - `k3` (`low_var_kl`): e^x - x - 1 with x = clamp(-d, -20, 20), the result clamped to [-10, 10]
 * A `+` suffix (`k3+`) is the straight-through variant: the value of the named estimator, the gradient of k2,
 * whose expectation is the gradient of the true KL (verl's "+" kinds).
 */
export type KlPenaltyKind = `${'k1' | 'k2' | 'k3' | 'kl' | 'mse' | 'low_var_kl'}${'' | '+'}`;

/** log-probs [B, T] of the policy and the reference policy -> per-token penalty [B, T]. */
export type KlPenalty = (logProbs: tf.Tensor2D, refLogProbs: tf.Tensor2D) => tf.Tensor2D;

const ESTIMATORS: Record<string, (logProbs: tf.Tensor2D, refLogProbs: tf.Tensor2D) => tf.Tensor> = {
  k1: (logProbs, refLogProbs) => tf.sub(logProbs, refLogProbs),
  k2: (logProbs, refLogProbs) => tf.mul(tf.square(tf.sub(logProbs, refLogProbs)), 0.5),
  k3: (logProbs, refLogProbs) => {
    const x = tf.clipByValue(tf.sub(refLogProbs, logProbs), -20, 20);
    return tf.clipByValue(tf.sub(tf.sub(tf.exp(x), x), 1), -10, 10);
  },
};
const ALIASES: Record<string, string> = { kl: 'k1', mse: 'k2', low_var_kl: 'k3' };

/** The KL penalty estimator named `kind` (see {@link KlPenaltyKind}). */
export function klPenalty(kind: KlPenaltyKind): KlPenalty {
  const straightThrough = kind.endsWith('+');
  const base = straightThrough ? kind.slice(0, -1) : kind;
  const estimator = ESTIMATORS[ALIASES[base] ?? base];
  if (estimator === undefined) {
    throw new Error(
      `klPenalty: unknown kind "${kind}"; use k1, k2, k3 (or kl, mse, low_var_kl), optionally with a "+" suffix`,
    );
  }
  if (!straightThrough) {
    return (logProbs, refLogProbs) => tf.tidy(() => estimator(logProbs, refLogProbs) as tf.Tensor2D);
  }
  return tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const [logProbs, refLogProbs, save] = args as [tf.Tensor2D, tf.Tensor2D, tf.GradSaveFunc];
    save([logProbs, refLogProbs]);
    return {
      value: tf.tidy(() => estimator(logProbs, refLogProbs)),
      // d(k2)/d log pi = d; the reference side gets the opposite sign.
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
        const difference = tf.sub(saved[0]!, saved[1]!);
        return [tf.mul(dy, difference), tf.neg(tf.mul(dy, difference))];
      },
    };
  }) as KlPenalty;
}
