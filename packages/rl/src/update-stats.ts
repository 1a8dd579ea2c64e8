import type { CorrectionMetrics } from '@taorl/grpo';

/** What the RL step's policy update reports (a subset of @taorl/grpo's update metrics), as its metrics line has it. */
export interface UpdateStats {
  /**
   * Averaged over the optimizer steps that computed it, refused ones included: NaN when one was not finite (null
   * in metrics.jsonl, which has no NaN), as gradNorm.
   */
  loss: number;
  /** The loss's clipFractionLow and clipFractionHigh, when it reports them (vanilla and cispo do). */
  clipFracLow?: number;
  clipFracHigh?: number;
  approxKl: number;
  /**
   * Every other metric the policy loss reported (pgLoss, meanRatio, entropy, dualClipFraction, kl, and a
   * plug-in loss's own), averaged over the optimizer steps taken.
   */
  lossMetrics?: Record<string, number>;
  gradNorm: number;
  /** The optimizer steps the learner refused, by reason (a non-finite loss or gradient norm: weights unchanged). */
  skippedUpdates?: string[];
  /**
   * rl.oldLogProbs trainer: the mismatch between the rollout's log-probs and the trainer's pi_old (k3 KL, ratio mean
   * and maximum) and what rl.correction did with it (weight mean, shares truncated and masked).
   */
  correction?: CorrectionMetrics;
}

/**
 * The warning for an RL step whose update the NaN/Inf guard refused (in part), naming the step and the policy loss:
 * the weights did not move for it, which a metrics line alone leaves easy to miss. Null when it refused nothing for a
 * non-finite value.
 */
export function nonFiniteRefusals(
  metrics: Pick<UpdateStats, 'skippedUpdates'> & { step: number },
  loss: string,
): string | null {
  const reasons = (metrics.skippedUpdates ?? []).filter((reason) => reason.startsWith('non-finite'));
  if (reasons.length === 0) return null;
  return (
    `warning: RL step ${metrics.step}: policy loss '${loss}': ${reasons.length} optimizer step(s) refused: ` +
    `${[...new Set(reasons)].join('; ')} (the loss is written as null in metrics.jsonl)`
  );
}
