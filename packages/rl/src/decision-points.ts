import type { Trajectory } from '@taorl/data';

/**
 * The post-tool decision points of a batch: the first policy token after each successful tool call, where the
 * policy chooses between answering now and calling again. TAO-RL's bonus is meant to land there.
 */
export interface DecisionPointStats {
  /** Decision points in the batch. */
  count: number;
  /** Mean rollout entropy at them (0 when there are none). */
  meanEntropy: number;
  /** Decision points whose entropy reaches the shaper's threshold, i.e. that received the bonus. */
  bonusTokens: number;
}

export function decisionPointStats(
  batch: readonly Pick<Trajectory, 'toolCalls' | 'lossMask' | 'entropies'>[],
  bonusThreshold: number | null,
): DecisionPointStats {
  let count = 0;
  let entropySum = 0;
  let bonusTokens = 0;
  for (const { toolCalls, lossMask, entropies } of batch) {
    for (const call of toolCalls) {
      const at = call.endToken;
      if (call.status !== 'ok' || at >= lossMask.length || lossMask[at] === 0) continue;
      count++;
      entropySum += entropies[at]!;
      if (bonusThreshold !== null && entropies[at]! >= bonusThreshold) bonusTokens++;
    }
  }
  return { count, meanEntropy: count === 0 ? 0 : entropySum / count, bonusTokens };
}
