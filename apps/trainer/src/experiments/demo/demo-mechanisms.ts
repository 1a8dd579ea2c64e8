import { ALL_TOOL_CALLS_FAILED } from '@taorl/filter';
import type { RlStepMetrics } from '@taorl/rl';
import {
  allFailedCorrectShare,
  decisionPointBonusShare,
  type EarlyLate,
  earlyAndLate,
  sum,
  type TrendName,
  trends,
} from '../../report/rl-trends.js';

/** What TAO-RL's mechanisms found to act on during the demo's RL, early against late (as the ablation reports). */
export interface DemoMechanisms {
  /** Steps in "early" (the first) and in "late" (the last): a quarter of the run, at least 1. */
  earlySteps: number;
  /** Share of the early steps' rollouts that made only failed calls yet answered right (what C1 removes). */
  allFailedCorrectEarly: number;
  /** Trajectories C1 dropped over the run. */
  c1Dropped: number;
  /** Share of all bonus tokens that sit at post-tool decision points; NaN when no token got a bonus. */
  decisionPointBonusShare: number;
  /** Tool calls per rollout, the entropy at decision points and each strategy's share, early -> late. */
  trends: Record<TrendName, EarlyLate>;
}

export function demoMechanisms(lines: readonly RlStepMetrics[]): DemoMechanisms {
  const { early } = earlyAndLate(lines);
  return {
    earlySteps: early.length,
    allFailedCorrectEarly: allFailedCorrectShare(early),
    c1Dropped: sum(lines.map((line) => line.filterDrops[ALL_TOOL_CALLS_FAILED] ?? 0)),
    decisionPointBonusShare: decisionPointBonusShare(lines),
    trends: trends(lines),
  };
}
