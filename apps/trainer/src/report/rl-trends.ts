import { ARITH_STRATEGIES, type ArithStrategy } from '@taorl/data';
import type { RlStepMetrics } from '@taorl/rl';

// The statistics both reports of RL steps derive from metrics lines, the demo's output and the ablation's tables,
// so that one name means one computation. A statistic with nothing to measure is NaN, never 0.

/** A statistic over training: its mean over the early steps and over the late steps (`earlyAndLate`). */
export interface EarlyLate {
  early: number;
  late: number;
}

/**
 * Statistics followed from the early to the late steps: tool calls, tool errors in correct trajectories,
 * decision-point entropy, each strategy's share.
 */
export const trendNames = [
  'toolCallsPerTrajectory',
  'toolErrorsInCorrect',
  'decisionPointEntropy',
  ...ARITH_STRATEGIES,
] as const;
export type TrendName = (typeof trendNames)[number];

export const sum = (values: readonly number[]) => values.reduce((total, v) => total + v, 0);
/** NaN for no values. */
export const mean = (values: readonly number[]) => sum(values) / values.length;
/** NaN when the weights add up to 0. */
const weightedMean = (values: readonly number[], weights: readonly number[]) =>
  sum(values.map((v, i) => v * weights[i]!)) / sum(weights);

/** "Early" and "late": the first and the last quarter of the steps, ceil(n / 4) each, so at least one step. */
export function earlyAndLate<T>(steps: readonly T[]): { early: readonly T[]; late: readonly T[] } {
  const span = Math.ceil(steps.length / 4);
  return { early: steps.slice(0, span), late: steps.slice(steps.length - span) };
}

/** Mean rollout entropy over the steps' post-tool decision points, each step weighted by how many it had. */
export const decisionPointEntropy = (lines: readonly RlStepMetrics[]) =>
  weightedMean(
    lines.map((line) => line.decisionPoints?.meanEntropy ?? 0),
    lines.map((line) => line.decisionPoints?.count ?? 0),
  );

/** Share of all the steps' bonus tokens that sit at post-tool decision points. */
export function decisionPointBonusShare(lines: readonly RlStepMetrics[]): number {
  const bonusTokens = sum(lines.map((line) => line.bonus.tokens));
  return bonusTokens === 0
    ? Number.NaN
    : sum(lines.map((line) => line.decisionPoints?.bonusTokens ?? 0)) / bonusTokens;
}

/**
 * Share of the steps' generated trajectories whose calls all failed yet whose answer was right (what C1 removes).
 * Each line's share is of its own step's trajectories, so steps weigh by their rollout batches (a refill doubles
 * them; every batch holds rl.groups x rl.groupSize).
 */
export const allFailedCorrectShare = (lines: readonly RlStepMetrics[]) =>
  weightedMean(
    lines.map((line) => line.allFailedCorrect),
    lines.map((line) => line.genBatches),
  );

/**
 * Share of the steps' correct trajectories with at least one failed call (rStar2-Agent reports 10-15% under GRPO,
 * under 5% with resample-on-correct). Steps weigh by their correct trajectories; NaN for metrics lines written
 * before the trainer recorded it, or with no correct trajectory.
 */
export const toolErrorsInCorrectShare = (lines: readonly RlStepMetrics[]) =>
  sum(lines.map((line) => (line.correctWithToolError ?? Number.NaN) * line.genBatches)) /
  sum(lines.map((line) => line.accuracy * line.genBatches));

function trendValue(name: TrendName, lines: readonly RlStepMetrics[]): number {
  if (name === 'toolCallsPerTrajectory') return mean(lines.map((line) => line.toolCallsPerTrajectory));
  if (name === 'toolErrorsInCorrect') return toolErrorsInCorrectShare(lines);
  if (name === 'decisionPointEntropy') return decisionPointEntropy(lines);
  const strategy: ArithStrategy = name;
  return mean(lines.map((line) => line.strategies?.[strategy] ?? Number.NaN));
}

/** Every trend, early against late; strategy shares are NaN off the embedded task. */
export function trends(lines: readonly RlStepMetrics[]): Record<TrendName, EarlyLate> {
  const { early, late } = earlyAndLate(lines);
  return Object.fromEntries(
    trendNames.map((name) => [name, { early: trendValue(name, early), late: trendValue(name, late) }]),
  ) as Record<TrendName, EarlyLate>;
}
