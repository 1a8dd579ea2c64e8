import { ARITH_STRATEGIES, type ArithStrategy } from '@taorl/data';
import { ALL_TOOL_CALLS_FAILED } from '@taorl/filter';
import type { EvalMetrics, MetricsLine, RlStepMetrics } from '../report/metrics.js';
import { greedyLabel } from '../run/evaluate.js';
import { AFTER_RL } from '../run/train.js';
import { sampleVariance } from './confidence.js';

/** Labels of the held-out lines `taorl rl --eval-after --eval-greedy` writes after its last step. */
const AFTER_RL_GREEDY = greedyLabel(AFTER_RL);

/** A statistic over training: its mean over the first quarter of the RL steps and over the last quarter. */
export interface EarlyLate {
  early: number;
  late: number;
}

/** Statistics followed from the first to the last quarter of the steps: tool calls, then each strategy's share. */
export const trendNames = ['toolCallsPerTrajectory', 'decisionPointEntropy', ...ARITH_STRATEGIES] as const;
export type TrendName = (typeof trendNames)[number];

/** What one RL run of the ablation measured: its held-out result and its training statistics. */
export interface RunSummary {
  /** Held-out Avg@K after RL, sampled at the rollout temperature (label 'after RL'). */
  avgAtK: number;
  /** Held-out Pass@K after RL. */
  passAtK: number;
  /** Held-out accuracy after RL, greedy decoding (label 'after RL (greedy)'). */
  greedyAccuracy: number;
  /** Variance of the gradient norm over RL steps (the stability claim of the filters). */
  gradNormVariance: number;
  /** Means over RL steps of the rollout statistics. */
  validCodeRatio: number;
  toolCallsPerTrajectory: number;
  responseTokens: number;
  entropy: number;
  /** Training accuracy over the last quarter of the steps. */
  finalTrainAccuracy: number;
  /** Trajectories generated per step (rollout batches x rl.groups x rl.groupSize), mean over steps. */
  generatedPerStep: number;
  /** Trajectories the update trained on per step (what the filters kept), mean over steps. */
  trainedPerStep: number;
  /** Share of the generated trajectories whose calls all failed yet whose answer was right (what C1 removes). */
  allFailedCorrect: number;
  /** Trajectories C1 (execution validity: every call failed) dropped per step, mean over steps. */
  c1DroppedPerStep: number;
  /** Post-tool decision points (first token after a successful call) that received the bonus, per step. */
  decisionPointBonusTokens: number;
  /** Their share of all bonus tokens of the run; NaN when no token received a bonus (no shaper). */
  decisionPointBonusShare: number;
  /** Mean rollout entropy over the run's decision points in the trained batches; NaN when there were none. */
  decisionPointEntropy: number;
  /** First against last quarter of the steps; strategy shares of the generated trajectories (NaN off arith-tool). */
  trends: Record<TrendName, EarlyLate>;
  /** Trajectories the filters dropped, over all steps. */
  dropped: number;
  rlSeconds: number;
  steps: number;
}

/** The ablation table's columns, in order: held-out results first, then the training statistics. */
export const summaryColumns = [
  'avgAtK',
  'passAtK',
  'greedyAccuracy',
  'gradNormVariance',
  'validCodeRatio',
  'toolCallsPerTrajectory',
  'responseTokens',
  'entropy',
  'finalTrainAccuracy',
] as const satisfies readonly (keyof RunSummary)[];

/** The compute and mechanism table's columns, in order. */
export const mechanismColumns = [
  'generatedPerStep',
  'trainedPerStep',
  'allFailedCorrect',
  'c1DroppedPerStep',
  'decisionPointBonusTokens',
  'decisionPointBonusShare',
  'decisionPointEntropy',
] as const satisfies readonly (keyof RunSummary)[];

/** Rollout batch shape of the run (its run-config.json), which the metrics lines do not repeat. */
export interface RolloutShape {
  groups: number;
  groupSize: number;
}

const sum = (values: readonly number[]) => values.reduce((total, v) => total + v, 0);
const mean = (values: readonly number[]) => sum(values) / values.length;
/** Weighted mean; NaN when the weights add up to 0 (nothing to average). */
const weightedMean = (values: readonly number[], weights: readonly number[]) =>
  sum(values.map((v, i) => v * weights[i]!)) / sum(weights);

/** The first and the last quarter of the steps (ceil(n / 4) each, so at least one step). */
function quarters<T>(steps: readonly T[]): { early: readonly T[]; late: readonly T[] } {
  const span = Math.ceil(steps.length / 4);
  return { early: steps.slice(0, span), late: steps.slice(steps.length - span) };
}

const decisionEntropy = (lines: readonly RlStepMetrics[]) =>
  weightedMean(
    lines.map((line) => line.decisionPoints?.meanEntropy ?? 0),
    lines.map((line) => line.decisionPoints?.count ?? 0),
  );

function trendValue(name: TrendName, lines: readonly RlStepMetrics[]): number {
  if (name === 'toolCallsPerTrajectory') return mean(lines.map((line) => line.toolCallsPerTrajectory));
  if (name === 'decisionPointEntropy') return decisionEntropy(lines);
  const strategy: ArithStrategy = name;
  return mean(lines.map((line) => line.strategies?.[strategy] ?? Number.NaN));
}

/** The held-out line labelled `label`, checked to be decoded as the table says (sampled or greedy). */
export function heldOutLine(
  lines: readonly MetricsLine[],
  label: string,
  greedy: boolean,
  source: string,
): EvalMetrics {
  const line = lines.find((l): l is EvalMetrics => l.phase === 'eval' && l.label === label);
  if (line === undefined) throw new Error(`${source}: no '${label}' evaluation line`);
  return checkDecoding(line, greedy, source);
}

/** `line` itself when it was decoded greedily exactly when `greedy`; else an error naming `source`. */
export function checkDecoding(line: EvalMetrics, greedy: boolean, source: string): EvalMetrics {
  if ((line.greedy === true) !== greedy)
    throw new Error(
      `${source}: '${line.label}' was ${line.greedy === true ? 'greedy' : 'sampled'}; the ablation expects it ` +
        `${greedy ? 'greedy' : 'sampled'}`,
    );
  return line;
}

/**
 * Summarises one run's metrics.jsonl lines; `shape` is its rl.groups and rl.groupSize, `source` names the file in
 * errors. The generated count is rollout batches x groups x groupSize, which must cover what each step kept and
 * dropped (else `shape` is not this run's).
 */
export function summarizeRun(lines: readonly MetricsLine[], shape: RolloutShape, source: string): RunSummary {
  const rl = lines.filter((line): line is RlStepMetrics => line.phase === 'rl');
  if (rl.length === 0) throw new Error(`${source}: no RL steps`);
  const after = heldOutLine(lines, AFTER_RL, false, source);
  const greedy = heldOutLine(lines, AFTER_RL_GREEDY, true, source);
  const dropsOf = (line: RlStepMetrics) => sum(Object.values(line.filterDrops));
  const generated = rl.map((line) => line.genBatches * shape.groups * shape.groupSize);
  rl.forEach((line, i) => {
    if (line.trajectoriesKept + dropsOf(line) > generated[i]!)
      throw new Error(
        `${source}: step ${line.step} kept ${line.trajectoriesKept} and dropped ${dropsOf(line)} of ` +
          `${line.genBatches} x ${shape.groups} x ${shape.groupSize} generated trajectories`,
      );
  });
  const bonusTokens = sum(rl.map((line) => line.bonus.tokens));
  const atDecisions = sum(rl.map((line) => line.decisionPoints?.bonusTokens ?? 0));
  const { early, late } = quarters(rl);
  return {
    avgAtK: after.accuracy,
    passAtK: after.passAtK,
    greedyAccuracy: greedy.accuracy,
    gradNormVariance: sampleVariance(rl.map((line) => line.gradNorm)),
    validCodeRatio: mean(rl.map((line) => line.validCodeRatio)),
    toolCallsPerTrajectory: mean(rl.map((line) => line.toolCallsPerTrajectory)),
    responseTokens: mean(rl.map((line) => line.responseTokens)),
    entropy: mean(rl.map((line) => line.entropy)),
    finalTrainAccuracy: mean(late.map((line) => line.accuracy)),
    generatedPerStep: mean(generated),
    trainedPerStep: mean(rl.map((line) => line.trajectoriesKept)),
    // Each line's share is of its own step's generated trajectories.
    allFailedCorrect: weightedMean(
      rl.map((line) => line.allFailedCorrect),
      generated,
    ),
    c1DroppedPerStep: mean(rl.map((line) => line.filterDrops[ALL_TOOL_CALLS_FAILED] ?? 0)),
    decisionPointBonusTokens: mean(rl.map((line) => line.decisionPoints?.bonusTokens ?? 0)),
    decisionPointBonusShare: bonusTokens === 0 ? Number.NaN : atDecisions / bonusTokens,
    decisionPointEntropy: decisionEntropy(rl),
    trends: Object.fromEntries(
      trendNames.map((name) => [name, { early: trendValue(name, early), late: trendValue(name, late) }]),
    ) as Record<TrendName, EarlyLate>,
    dropped: sum(rl.map(dropsOf)),
    rlSeconds: sum(rl.map((line) => line.time.totalMs)) / 1000,
    steps: rl.length,
  };
}
