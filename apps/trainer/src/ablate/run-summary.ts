import type { EvalMetrics, MetricsLine, RlStepMetrics } from '../report/metrics.js';
import { sampleVariance } from './confidence.js';

/** What one RL run of the ablation measured: its held-out result and its training statistics. */
export interface RunSummary {
  /** Held-out Avg@K after RL (label 'after RL'). */
  avgAtK: number;
  /** Held-out Pass@K after RL. */
  passAtK: number;
  /** Variance of the gradient norm over RL steps (the stability claim of the filters). */
  gradNormVariance: number;
  /** Means over RL steps of the rollout statistics. */
  validCodeRatio: number;
  toolCallsPerTrajectory: number;
  responseTokens: number;
  entropy: number;
  /** Training accuracy over the last quarter of the steps. */
  finalTrainAccuracy: number;
  /** Trajectories the filters dropped, over all steps. */
  dropped: number;
  rlSeconds: number;
  steps: number;
}

/** The summary metrics an ablation table reports, in column order. */
export const summaryColumns = [
  'avgAtK',
  'passAtK',
  'gradNormVariance',
  'validCodeRatio',
  'toolCallsPerTrajectory',
  'responseTokens',
  'entropy',
  'finalTrainAccuracy',
] as const satisfies readonly (keyof RunSummary)[];

const mean = (values: readonly number[]) => values.reduce((sum, v) => sum + v, 0) / values.length;

/** Summarises one run's metrics.jsonl lines; `source` names the file in errors. */
export function summarizeRun(lines: readonly MetricsLine[], source: string): RunSummary {
  const rl = lines.filter((line): line is RlStepMetrics => line.phase === 'rl');
  const after = lines.find((line): line is EvalMetrics => line.phase === 'eval' && line.label === 'after RL');
  if (rl.length === 0) throw new Error(`${source}: no RL steps`);
  if (after === undefined) throw new Error(`${source}: no 'after RL' evaluation line`);
  const lastQuarter = rl.slice(Math.floor((3 * rl.length) / 4));
  return {
    avgAtK: after.accuracy,
    passAtK: after.passAtK,
    gradNormVariance: sampleVariance(rl.map((line) => line.gradNorm)),
    validCodeRatio: mean(rl.map((line) => line.validCodeRatio)),
    toolCallsPerTrajectory: mean(rl.map((line) => line.toolCallsPerTrajectory)),
    responseTokens: mean(rl.map((line) => line.responseTokens)),
    entropy: mean(rl.map((line) => line.entropy)),
    finalTrainAccuracy: mean(lastQuarter.map((line) => line.accuracy)),
    dropped: rl.reduce((sum, line) => sum + Object.values(line.filterDrops).reduce((a, b) => a + b, 0), 0),
    rlSeconds: rl.reduce((sum, line) => sum + line.time.totalMs, 0) / 1000,
    steps: rl.length,
  };
}
