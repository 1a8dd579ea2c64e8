import { ALL_TOOL_CALLS_FAILED } from '@taorl/filter';
import type { RlStepMetrics } from '@taorl/rl';
import type { EvalMetrics, MetricsLine } from '../../report/metrics.js';
import {
  allFailedCorrectShare,
  decisionPointBonusShare,
  decisionPointEntropy,
  type EarlyLate,
  earlyAndLate,
  mean,
  sum,
  type TrendName,
  trends,
} from '../../report/rl-trends.js';
import { greedyLabel } from '../../workflows/evaluate.js';
import { AFTER_RL } from '../../workflows/train.js';
import { sampleVariance } from './confidence.js';

/** Labels of the held-out lines `taorl rl --eval-after --eval-greedy` writes after its last step. */
export const AFTER_RL_GREEDY = greedyLabel(AFTER_RL);

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
  /** Training accuracy over the late steps (the last quarter). */
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
  /** Early against late steps (first and last quarter); strategy shares of the generated trajectories. */
  trends: Record<TrendName, EarlyLate>;
  /**
   * Trajectories per step each filter verdict acted on, by action and reason (`drop: <reason>`, `mask: <reason>`,
   * `resample: <reason>`), mean over steps; a reason no step produced is absent.
   */
  filterReasons: Record<string, number>;
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

/** Per action and reason, the trajectories the run's filters acted on per step (RunSummary.filterReasons). */
function filterReasonsPerStep(rl: readonly RlStepMetrics[]): Record<string, number> {
  const totals: Record<string, number> = {};
  const add = (action: string, counts: Record<string, number> | undefined) => {
    for (const [reason, n] of Object.entries(counts ?? {}))
      totals[`${action}: ${reason}`] = (totals[`${action}: ${reason}`] ?? 0) + n;
  };
  for (const line of rl) {
    add('drop', line.filterDrops);
    add('mask', line.filterMasks);
    add('resample', line.filterResamples);
  }
  return Object.fromEntries(Object.entries(totals).map(([key, total]) => [key, total / rl.length]));
}

/** Rollout batch shape of the run (its run-config.json), which the metrics lines do not repeat. */
export interface RolloutShape {
  groups: number;
  groupSize: number;
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
  // Dropped and resampled ones left the batch; resample-on-correct's oversampling is in the generated count.
  const dropsOf = (line: RlStepMetrics) =>
    sum(Object.values(line.filterDrops)) + sum(Object.values(line.filterResamples ?? {}));
  const generated = rl.map((line) => line.genBatches * shape.groups * shape.groupSize);
  rl.forEach((line, i) => {
    if (line.trajectoriesGenerated !== undefined && line.trajectoriesGenerated !== generated[i])
      throw new Error(
        `${source}: step ${line.step} generated ${line.trajectoriesGenerated} trajectories, not ` +
          `${line.genBatches} x ${shape.groups} x ${shape.groupSize}: the shape is not this run's`,
      );
    if (line.trajectoriesKept + dropsOf(line) > generated[i]!)
      throw new Error(
        `${source}: step ${line.step} kept ${line.trajectoriesKept} and dropped or resampled ${dropsOf(line)} of ` +
          `${line.genBatches} x ${shape.groups} x ${shape.groupSize} generated trajectories`,
      );
  });
  const { late } = earlyAndLate(rl);
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
    allFailedCorrect: allFailedCorrectShare(rl),
    c1DroppedPerStep: mean(rl.map((line) => line.filterDrops[ALL_TOOL_CALLS_FAILED] ?? 0)),
    decisionPointBonusTokens: mean(rl.map((line) => line.decisionPoints?.bonusTokens ?? 0)),
    decisionPointBonusShare: decisionPointBonusShare(rl),
    decisionPointEntropy: decisionPointEntropy(rl),
    trends: trends(rl),
    filterReasons: filterReasonsPerStep(rl),
    dropped: sum(rl.map(dropsOf)),
    rlSeconds: sum(rl.map((line) => line.time.totalMs)) / 1000,
    steps: rl.length,
  };
}
