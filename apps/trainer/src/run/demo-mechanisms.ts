import { ALL_TOOL_CALLS_FAILED } from '@taorl/filter';
import type { RlStepMetrics } from '../report/metrics.js';

/** What TAO-RL's mechanisms found to act on during the demo's RL, early against late. */
export interface DemoMechanisms {
  /** Steps averaged for "early" (the first) and "late" (the last): a fifth of the run, at least 1. */
  earlySteps: number;
  /** Share of the early steps' rollouts that made only failed calls yet answered right (what C1 removes). */
  allFailedCorrectEarly: number;
  /** Trajectories C1 dropped over the run. */
  c1Dropped: number;
  /** Share of all bonus tokens that sit at post-tool decision points. */
  decisionPointBonusShare: number;
  decisionPointEntropyEarly: number;
  decisionPointEntropyLate: number;
  toolCallsEarly: number;
  toolCallsLate: number;
  directEarly: number;
  directLate: number;
  stoppedEarlyEarly: number;
  stoppedEarlyLate: number;
}

const mean = (values: readonly number[]) =>
  values.length === 0 ? 0 : values.reduce((sum, value) => sum + value, 0) / values.length;

export function demoMechanisms(lines: readonly RlStepMetrics[]): DemoMechanisms {
  const span = Math.max(1, Math.floor(lines.length / 5));
  const early = lines.slice(0, span);
  const late = lines.slice(-span);
  const bonusTokens = lines.reduce((sum, line) => sum + line.bonus.tokens, 0);
  const atDecisions = lines.reduce((sum, line) => sum + (line.decisionPoints?.bonusTokens ?? 0), 0);
  const decisionEntropy = (part: readonly RlStepMetrics[]) =>
    mean(
      part.filter((line) => (line.decisionPoints?.count ?? 0) > 0).map((l) => l.decisionPoints!.meanEntropy),
    );
  return {
    earlySteps: span,
    allFailedCorrectEarly: mean(early.map((line) => line.allFailedCorrect)),
    c1Dropped: lines.reduce((sum, line) => sum + (line.filterDrops[ALL_TOOL_CALLS_FAILED] ?? 0), 0),
    decisionPointBonusShare: bonusTokens === 0 ? 0 : atDecisions / bonusTokens,
    decisionPointEntropyEarly: decisionEntropy(early),
    decisionPointEntropyLate: decisionEntropy(late),
    toolCallsEarly: mean(early.map((line) => line.toolCallsPerTrajectory)),
    toolCallsLate: mean(late.map((line) => line.toolCallsPerTrajectory)),
    directEarly: mean(early.map((line) => line.strategies?.direct ?? 0)),
    directLate: mean(late.map((line) => line.strategies?.direct ?? 0)),
    stoppedEarlyEarly: mean(early.map((line) => line.strategies?.['stopped-early'] ?? 0)),
    stoppedEarlyLate: mean(late.map((line) => line.strategies?.['stopped-early'] ?? 0)),
  };
}
