import type { RlStepMetrics } from '@taorl/rl';
import type { MetricsLine } from '../../report/metrics.js';
import { earlyAndLate, mean } from '../../report/rl-trends.js';
import { AFTER_RL } from '../../workflows/train.js';
import {
  type CorrelationWithInterval,
  centredWithin,
  correlationWithInterval,
  type MeanWithInterval,
  meanWithInterval,
} from '../ablate/confidence.js';
import { AFTER_RL_GREEDY, heldOutLine } from '../ablate/run-summary.js';

// The pre-registered analysis of issue 48's experiment (docs/experiments/preconditions.md, "Analysis (fixed)"):
// the measures `taorl ablate`'s report does not table, each per run, then paired by seed against grpo.

/** The RL steps H1's primary metric averages over (steps 1-30). */
const H1_STEPS = 30;

/** What the pre-registration reads from one run's metrics.jsonl. */
export interface PreconditionRun {
  arm: string;
  seed: number;
  /** Held-out Avg@2 after RL (the 'after RL' line). */
  avgAt2: number;
  /** Held-out answers after RL right without a successful call, as a share of all (its `unexecutedCorrect`). */
  unexecutedCorrect: number;
  /** Held-out answers after RL right through the tool: Avg@2 minus `unexecutedCorrect`. */
  toolCorrect: number;
  /** Held-out greedy accuracy after RL (the 'after RL (greedy)' line). */
  greedyAccuracy: number;
  /** Share of the generated rollouts with every needed call made and successful (`tool` + `recovered`), steps 1-30. */
  toolUseShare: number;
  /** Wasted calls per trajectory (failed calls and repeats) over the first and the last quarter of the steps. */
  wastedEarly: number;
  wastedLate: number;
  gaveUpEarly: number;
  gaveUpLate: number;
  allFailedCorrectEarly: number;
  allFailedCorrectLate: number;
  responseTokensEarly: number;
  responseTokensLate: number;
  /** Mean over steps of the rollouts' entropy at post-tool decision points. */
  decisionPointEntropy: number;
  steps: number;
}

const stepMean = (lines: readonly RlStepMetrics[], read: (line: RlStepMetrics) => number | undefined) =>
  mean(lines.map((line) => read(line) ?? Number.NaN));

/** One run's measures; `source` names its file in errors. */
export function preconditionRun(
  arm: string,
  seed: number,
  lines: readonly MetricsLine[],
  source: string,
): PreconditionRun {
  const rl = lines.filter((line): line is RlStepMetrics => line.phase === 'rl');
  if (rl.length < H1_STEPS) throw new Error(`${source}: ${rl.length} RL steps, H1 needs ${H1_STEPS}`);
  const { early, late } = earlyAndLate(rl);
  const both = (read: (line: RlStepMetrics) => number | undefined) => [
    stepMean(early, read),
    stepMean(late, read),
  ];
  const [wastedEarly, wastedLate] = both((line) => line.wastedCallsPerTrajectory);
  const [gaveUpEarly, gaveUpLate] = both((line) => line.strategies?.['gave-up']);
  const [allFailedCorrectEarly, allFailedCorrectLate] = both((line) => line.allFailedCorrect);
  const [responseTokensEarly, responseTokensLate] = both((line) => line.responseTokens);
  const heldOut = heldOutLine(lines, AFTER_RL, false, source);
  if (heldOut.unexecutedCorrect === undefined)
    throw new Error(`${source}: its '${AFTER_RL}' line has no unexecutedCorrect`);
  return {
    arm,
    seed,
    avgAt2: heldOut.accuracy,
    unexecutedCorrect: heldOut.unexecutedCorrect,
    toolCorrect: heldOut.accuracy - heldOut.unexecutedCorrect,
    greedyAccuracy: heldOutLine(lines, AFTER_RL_GREEDY, true, source).accuracy,
    toolUseShare: stepMean(
      rl.slice(0, H1_STEPS),
      (line) => (line.strategies?.tool ?? Number.NaN) + (line.strategies?.recovered ?? Number.NaN),
    ),
    wastedEarly: wastedEarly!,
    wastedLate: wastedLate!,
    gaveUpEarly: gaveUpEarly!,
    gaveUpLate: gaveUpLate!,
    allFailedCorrectEarly: allFailedCorrectEarly!,
    allFailedCorrectLate: allFailedCorrectLate!,
    responseTokensEarly: responseTokensEarly!,
    responseTokensLate: responseTokensLate!,
    decisionPointEntropy: stepMean(rl, (line) => line.decisionPoints?.meanEntropy),
    steps: rl.length,
  };
}

export type RunMeasure = Exclude<keyof PreconditionRun, 'arm' | 'seed' | 'steps'>;

/** The paired difference `arm - baseline` of one measure, seed by seed, over the seeds both have. */
export function pairedDifference(
  runs: readonly PreconditionRun[],
  arm: string,
  measure: RunMeasure,
  baseline = 'grpo',
): (MeanWithInterval & { seeds: number[] }) | null {
  const of = (name: string) => new Map(runs.filter((run) => run.arm === name).map((run) => [run.seed, run]));
  const [armRuns, baseRuns] = [of(arm), of(baseline)];
  const seeds = [...armRuns.keys()].filter((seed) => baseRuns.has(seed)).sort((a, b) => a - b);
  if (seeds.length === 0) return null;
  const differences = seeds.map((seed) => armRuns.get(seed)![measure] - baseRuns.get(seed)![measure]);
  return { ...meanWithInterval(differences), seeds };
}

/**
 * H1's slope: per seed, the least-squares slope of (c1 - grpo) tool-use share over the lucky-answer levels, then
 * its mean over the seeds every level has. `levels` maps luckyShare to that level's runs.
 */
export function h1Slope(levels: ReadonlyMap<number, readonly PreconditionRun[]>): MeanWithInterval | null {
  const differenceBySeed = [...levels].map(([level, runs]) => {
    const arm = (name: string) =>
      new Map(runs.filter((r) => r.arm === name).map((r) => [r.seed, r.toolUseShare]));
    const [c1, grpo] = [arm('c1'), arm('grpo')];
    const bySeed = new Map(
      [...c1].filter(([seed]) => grpo.has(seed)).map(([seed, v]) => [seed, v - grpo.get(seed)!]),
    );
    return { level, bySeed };
  });
  if (differenceBySeed.length < 2) return null;
  const seeds = [...differenceBySeed[0]!.bySeed.keys()].filter((seed) =>
    differenceBySeed.every(({ bySeed }) => bySeed.has(seed)),
  );
  if (seeds.length === 0) return null;
  const xs = differenceBySeed.map(({ level }) => level);
  const mx = mean(xs);
  const slopes = seeds.map((seed) => {
    const ys = differenceBySeed.map(({ bySeed }) => bySeed.get(seed)!);
    const my = mean(ys);
    const sxy = xs.reduce((total, x, i) => total + (x - mx) * (ys[i]! - my), 0);
    const sxx = xs.reduce((total, x) => total + (x - mx) ** 2, 0);
    return sxy / sxx;
  });
  return meanWithInterval(slopes);
}

/** H3: within-seed Pearson r, over the runs, of the last quarter's wasted calls with held-out Avg@2. */
export function h3Correlation(runs: readonly PreconditionRun[]): CorrelationWithInterval {
  const seeds = runs.map((run) => run.seed);
  return correlationWithInterval(
    centredWithin(
      runs.map((run) => run.wastedLate),
      seeds,
    ),
    centredWithin(
      runs.map((run) => run.avgAt2),
      seeds,
    ),
    new Set(seeds).size - 1,
  );
}

/** The pre-registration's verdict on a paired interval: holds when it excludes 0 in the predicted direction. */
export function verdict(interval: MeanWithInterval | null, direction: 1 | -1): 'holds' | 'fails' | 'not run' {
  if (interval === null || Number.isNaN(interval.halfWidth)) return 'not run';
  const low = interval.mean - interval.halfWidth;
  const high = interval.mean + interval.halfWidth;
  return (direction > 0 ? low > 0 : high < 0) ? 'holds' : 'fails';
}
