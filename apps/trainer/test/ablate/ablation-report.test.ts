import type { RlStepMetrics } from '@taorl/rl';
import { describe, expect, it } from 'vitest';
import {
  ablationMarkdown,
  ablationTable,
  type VariantRuns,
} from '../../src/experiments/ablate/ablation-report.js';
import { type RunSummary, summarizeRun } from '../../src/experiments/ablate/run-summary.js';
import { selectVariants } from '../../src/experiments/ablate/variants.js';
import type { EvalMetrics, MetricsLine } from '../../src/report/metrics.js';
import { trendNames } from '../../src/report/rl-trends.js';
import { neutralRlLine } from '../support/metrics-lines.js';

function evalLine(label: string, accuracy: number, greedy: boolean): EvalMetrics {
  return {
    phase: 'eval',
    step: 4,
    label,
    problems: 10,
    accuracy,
    passAtK: greedy ? accuracy : 0.9,
    toolCallsPerTrajectory: 1,
    toolSuccessRate: 1,
    responseTokens: 80,
    seconds: 1,
    greedy,
  };
}

const strategies = (direct: number) => ({
  direct,
  tool: 1 - direct,
  recovered: 0,
  'gave-up': 0,
  'stopped-early': 0,
});

/** Four steps of 2 groups x 4 samples per rollout batch; step 1 refilled (2 batches, 16 generated). */
const steps: RlStepMetrics[] = [
  neutralRlLine(0, {
    gradNorm: 1,
    trajectoriesKept: 6,
    filterDrops: { 'all-tool-calls-failed': 2 },
    allFailedCorrect: 0.25,
    correctWithToolError: 0.25,
    decisionPoints: { count: 2, meanEntropy: 0.2, bonusTokens: 1 },
    bonus: { tokens: 4, mean: 0.1, max: 0.2 },
    toolCallsPerTrajectory: 0.5,
    strategies: strategies(0.5),
  }),
  neutralRlLine(1, {
    gradNorm: 2,
    genBatches: 2,
    trajectoriesKept: 8,
    filterDrops: { 'all-tool-calls-failed': 1, 'all-correct': 4 },
    allFailedCorrect: 0.125,
    decisionPoints: { count: 0, meanEntropy: 0, bonusTokens: 0 },
    strategies: strategies(0.25),
  }),
  neutralRlLine(2, {
    gradNorm: 3,
    filterMasks: { 'void-turn': 2 },
    decisionPoints: { count: 3, meanEntropy: 0.4, bonusTokens: 2 },
    bonus: { tokens: 6, mean: 0.1, max: 0.2 },
    strategies: strategies(0.25),
  }),
  neutralRlLine(3, {
    gradNorm: 4,
    accuracy: 0.75,
    correctWithToolError: 0.25,
    trajectoriesKept: 4,
    filterDrops: { 'all-wrong': 4 },
    decisionPoints: { count: 1, meanEntropy: 0.1, bonusTokens: 1 },
    bonus: { tokens: 2, mean: 0.1, max: 0.2 },
    toolCallsPerTrajectory: 1.5,
    strategies: strategies(0.125),
  }),
];
const shape = { groups: 2, groupSize: 4 };
const finished = (lines: MetricsLine[]) => [
  ...lines,
  evalLine('after RL', 0.6, false),
  evalLine('after RL (greedy)', 0.7, true),
];

describe('ablation run summary', () => {
  it('derives the rollout budget and the mechanisms from the metrics lines', () => {
    const s = summarizeRun(finished(steps), shape, 'metrics.jsonl');
    expect(s.avgAtK).toBe(0.6);
    expect(s.passAtK).toBe(0.9);
    expect(s.greedyAccuracy).toBe(0.7);
    // Generated: 8, 16, 8, 8 (batches x 2 x 4); trained: 6, 8, 8, 4.
    expect(s.generatedPerStep).toBe(10);
    expect(s.trainedPerStep).toBe(6.5);
    // All-failed-but-right: 0.25 of 8 and 0.125 of 16, i.e. 4 of the 40 generated (not the mean of the shares).
    expect(s.allFailedCorrect).toBeCloseTo(0.1, 12);
    expect(s.c1DroppedPerStep).toBe(0.75);
    expect(s.dropped).toBe(11);
    expect(s.decisionPointBonusTokens).toBe(1);
    expect(s.decisionPointBonusShare).toBeCloseTo(4 / 12, 12);
    // Over the 6 decision points: 2 at 0.2, 3 at 0.4, 1 at 0.1.
    expect(s.decisionPointEntropy).toBeCloseTo(1.7 / 6, 12);
    expect(s.gradNormVariance).toBeCloseTo(5 / 3, 12);
    // A quarter of 4 steps is the first and the last step.
    expect(s.finalTrainAccuracy).toBe(0.75);
    expect(s.trends.toolCallsPerTrajectory).toEqual({ early: 0.5, late: 1.5 });
    expect(s.trends.decisionPointEntropy.early).toBeCloseTo(0.2, 12);
    expect(s.trends.decisionPointEntropy.late).toBeCloseTo(0.1, 12);
    expect(s.trends.direct).toEqual({ early: 0.5, late: 0.125 });
    expect(s.trends.tool).toEqual({ early: 0.5, late: 0.875 });
    // Correct trajectories with a failed call: 0.25 of the first step's 8 of which 0.5 are right; 0.25 of the
    // last step's, where 0.75 are right.
    expect(s.trends.toolErrorsInCorrect.early).toBeCloseTo(0.5, 12);
    expect(s.trends.toolErrorsInCorrect.late).toBeCloseTo(1 / 3, 12);
    // Per action and reason, over the 4 steps.
    expect(s.filterReasons).toEqual({
      'drop: all-tool-calls-failed': 0.75,
      'drop: all-correct': 1,
      'drop: all-wrong': 1,
      'mask: void-turn': 0.5,
    });
  });

  it('marks what was not there to measure as NaN, not 0', () => {
    const plain = steps.map(({ strategies: _, decisionPoints: __, ...line }) => ({
      ...line,
      bonus: { tokens: 0, mean: 0, max: 0 },
    }));
    const s = summarizeRun(finished(plain), shape, 'metrics.jsonl');
    expect(s.decisionPointBonusShare).toBeNaN();
    expect(s.decisionPointEntropy).toBeNaN();
    expect(s.trends.direct.early).toBeNaN();
    expect(s.trends.toolCallsPerTrajectory.early).toBe(0.5);
    // Metrics lines written before the trainer recorded tool errors in correct trajectories.
    const older = steps.map(({ correctWithToolError: _, ...line }) => line) as RlStepMetrics[];
    expect(summarizeRun(finished(older), shape, 'metrics.jsonl').trends.toolErrorsInCorrect.late).toBeNaN();
  });

  it('counts the rollouts a step reports: resample-on-correct oversampling is in the budget', () => {
    const oversampled = steps.map((line) => ({ ...line, trajectoriesGenerated: 16 }));
    expect(() => summarizeRun(finished(oversampled), shape, 'm.jsonl')).toThrow(
      /m\.jsonl: step 0 generated 16 trajectories, not 1 x 2 x 4: the shape is not this run's/,
    );
  });

  it('refuses a rollout shape that does not cover what the steps kept and dropped', () => {
    expect(() => summarizeRun(finished(steps), { groups: 2, groupSize: 3 }, 'm.jsonl')).toThrow(
      /m\.jsonl: step 0 kept 6 and dropped or resampled 2 of 1 x 2 x 3 generated/,
    );
  });

  it('needs the sampled and the greedy evaluation after RL, each decoded as labelled', () => {
    expect(() => summarizeRun([...steps, evalLine('after RL', 0.6, false)], shape, 'm.jsonl')).toThrow(
      /no 'after RL \(greedy\)' evaluation line/,
    );
    expect(() =>
      summarizeRun(
        [...steps, evalLine('after RL', 0.6, true), evalLine('after RL (greedy)', 0.7, true)],
        shape,
        'm.jsonl',
      ),
    ).toThrow(/'after RL' was greedy; the ablation expects it sampled/);
  });
});

/** A run summary with the given held-out results and late tool calls; the other statistics do not matter here. */
function summary(avgAtK: number, greedyAccuracy: number, lateToolCalls?: number): RunSummary {
  const base = summarizeRun(finished(steps), shape, 'metrics.jsonl');
  const toolCalls = base.trends.toolCallsPerTrajectory;
  return {
    ...base,
    avgAtK,
    passAtK: avgAtK + 0.1,
    greedyAccuracy,
    trends: {
      ...base.trends,
      toolCallsPerTrajectory: { early: toolCalls.early, late: lateToolCalls ?? toolCalls.late },
    },
  };
}

/** An arm's runs: per seed, [Avg@K, greedy accuracy] and optionally the late steps' tool calls per trajectory. */
const runs = (
  name: string,
  seeds: number[],
  results: ([number, number] | [number, number, number])[],
): VariantRuns => ({
  variant: selectVariants(name)[0]!,
  seeds,
  summaries: results.map(([avg, greedy, calls]) => summary(avg, greedy, calls)),
  curves: seeds.map(() => steps),
});

const start = [
  { avgAtK: 0.4, passAtK: 0.6, greedyAccuracy: 0.5 },
  { avgAtK: 0.3, passAtK: 0.5, greedyAccuracy: 0.5 },
  { avgAtK: 0.35, passAtK: 0.55, greedyAccuracy: 0.5 },
];
const grpo = runs(
  'grpo',
  [1, 2, 3],
  [
    [0.5, 0.6],
    [0.4, 0.55],
    [0.45, 0.7],
  ],
);
// Listed in another seed order: pairing is by seed, not by position.
const c1 = runs(
  'c1',
  [3, 1, 2],
  [
    [0.51, 0.72],
    [0.53, 0.58],
    [0.41, 0.55],
  ],
);

describe('ablation tables', () => {
  it('pairs each arm with grpo by seed: mean difference and Student t interval over seeds', () => {
    const table = ablationTable(start, [grpo, c1], 4);
    expect(table.paired.map((row) => row.variant)).toEqual(['c1']);
    const [row] = table.paired;
    // Avg@4 minus grpo's, in points: seed 3 +6, seed 1 +3, seed 2 +1. Mean 10/3; deviations 8/3, -1/3, -7/3, so
    // sd = sqrt((64 + 1 + 49) / 9 / 2) = sqrt(57) / 3 and the half-width is 4.303 * sd / sqrt(3) = 4.303 sqrt(19) / 3.
    expect(row!.avgAtK.perSeed.map((d) => d * 100)).toEqual([
      expect.closeTo(6, 9),
      expect.closeTo(3, 9),
      expect.closeTo(1, 9),
    ]);
    expect(row!.avgAtK.mean * 100).toBeCloseTo(10 / 3, 9);
    expect(row!.avgAtK.sd * 100).toBeCloseTo(Math.sqrt(57) / 3, 9);
    expect(row!.avgAtK.halfWidth * 100).toBeCloseTo((4.303 * Math.sqrt(19)) / 3, 9);
    // Greedy: +2, -2, 0 points; mean 0, sd 2, half-width 4.303 * 2 / sqrt(3).
    expect(row!.greedyAccuracy.mean * 100).toBeCloseTo(0, 9);
    expect(row!.greedyAccuracy.halfWidth * 100).toBeCloseTo((4.303 * 2) / Math.sqrt(3), 9);
    // Unpaired, the arms' own intervals would be far wider than the paired one.
    expect(table.rows[1]!.avgAtK.halfWidth).toBeGreaterThan(row!.avgAtK.halfWidth);
  });

  it('refuses to pair an arm with a seed the baseline did not run', () => {
    const other = runs(
      'c2',
      [1, 4],
      [
        [0.5, 0.5],
        [0.5, 0.5],
      ],
    );
    expect(() => ablationTable(start, [grpo, other], 4)).toThrow(/arm c2 ran seed 4, grpo did not/);
  });

  it('writes the held-out, paired, mechanism and trend tables as markdown', () => {
    const markdown = ablationMarkdown(ablationTable(start, [grpo, c1], 4));
    const lines = markdown.split('\n');
    expect(lines[0]).toBe(
      '| variant | seeds | held-out Avg@4 | held-out Pass@4 | held-out greedy | grad-norm variance | valid-code ratio | ' +
        'tool calls / traj | response tokens | entropy (nats) | train acc, last 25% |',
    );
    // Start: Avg@4 35.0 (sd 5, half-width 4.303 * 5 / sqrt 3 = 12.4), greedy 50.0 on every seed (no spread).
    expect(lines[2]).toBe(
      '| SFT start (no RL) | 3 | 35.0 ± 12.4 | 55.0 ± 12.4 | 50.0 ± 0.0 |  |  |  |  |  |  |',
    );
    expect(lines).toContain(
      '| arm - grpo | Δ Avg@4 | per seed (3 / 1 / 2) | Δ greedy | per seed (3 / 1 / 2) |',
    );
    expect(lines).toContain('| c1 | +3.3 ± 6.3 | +6.0 / +3.0 / +1.0 | 0.0 ± 5.0 | +2.0 / -2.0 / 0.0 |');
    expect(lines).toContain(
      '| variant | seeds | generated / step | trained / step | all-failed-but-right | C1 drops / step | ' +
        'bonus at decision points / step | share of bonus at decision points | decision-point entropy |',
    );
    // Every seed has the same training lines, so no spread.
    expect(lines).toContain(
      '| grpo | 3 | 10.0 ± 0.0 | 6.5 ± 0.0 | 10.0 ± 0.0 | 0.8 ± 0.0 | 1.0 ± 0.0 | 33.3 ± 0.0 | 0.283 ± 0.000 |',
    );
    expect(lines).toContain(
      '| variant | tool calls / traj | tool errors in correct | decision-point entropy | direct | tool | recovered | ' +
        'gave-up | stopped-early |',
    );
    expect(lines).toContain(
      '| c1 | 0.500 -> 1.500 | 50.0 -> 33.3 | 0.200 -> 0.100 | 50.0 -> 12.5 | 50.0 -> 87.5 | 0.0 -> 0.0 | ' +
        '0.0 -> 0.0 | 0.0 -> 0.0 |',
    );
    expect(trendNames).toHaveLength(8);
    expect(lines).toContain(
      '| variant | seeds | drop: all-correct | drop: all-tool-calls-failed | drop: all-wrong | mask: void-turn |',
    );
    expect(lines).toContain('| grpo | 3 | 1.00 ± 0.00 | 0.75 ± 0.00 | 1.00 ± 0.00 | 0.50 ± 0.00 |');
  });

  it("correlates the runs' late tool calls with their held-out results, pooled and within seed", () => {
    // Seeds with more calls score lower, while on each seed the arm with more calls scores higher on Avg@4.
    const arms = [
      runs(
        'grpo',
        [1, 2, 3],
        [
          [0.4, 0.6, 1.2],
          [0.62, 0.55, 1.0],
          [0.8, 0.7, 0.8],
        ],
      ),
      runs(
        'c1',
        [1, 2, 3],
        [
          [0.47, 0.58, 1.35],
          [0.61, 0.55, 1.05],
          [0.86, 0.72, 0.9],
        ],
      ),
    ];
    const { toolCalls } = ablationTable(start, arms, 4);
    expect(toolCalls).toMatchObject({ runs: 6, seeds: 3 });
    // numpy.corrcoef; within seed: the residuals of least squares on seed indicators, then corrcoef. Intervals
    // tanh(atanh(r) -+ 1.96 / sqrt(6 - 3)), within seed sqrt(6 - 3 - 2).
    const expected = {
      pooled: {
        avgAtK: [-0.8868070781525529, -0.9875972150948452, -0.2684264399587606],
        greedyAccuracy: [-0.6199081685546324, -0.9523508598854634, 0.3857101730557064],
      },
      withinSeed: {
        avgAtK: [0.9222246683267757, -0.3419445641948074, 0.9983957027333259],
        greedyAccuracy: [-0.18898223650461407, -0.9732937826778773, 0.9434688001008055],
      },
    };
    for (const kind of ['pooled', 'withinSeed'] as const)
      for (const column of ['avgAtK', 'greedyAccuracy'] as const) {
        const { r, low, high } = toolCalls[kind][column];
        const [er, elow, ehigh] = expected[kind][column];
        expect(r).toBeCloseTo(er!, 12);
        expect(low).toBeCloseTo(elow!, 12);
        expect(high).toBeCloseTo(ehigh!, 12);
      }
    const lines = ablationMarkdown(ablationTable(start, arms, 4)).split('\n');
    expect(lines).toContain('| runs | r with Avg@4 | r with greedy |');
    expect(lines).toContain('| pooled | -0.89 [-0.99, -0.27] | -0.62 [-0.95, +0.39] |');
    expect(lines).toContain('| within seed | +0.92 [-0.34, +1.00] | -0.19 [-0.97, +0.94] |');
  });

  it("counts a reason one seed's run never produced as 0 for that seed", () => {
    const quiet = {
      ...c1,
      summaries: c1.summaries.map((s, i) => (i === 0 ? { ...s, filterReasons: {} } : s)),
    };
    const [row] = ablationTable(start, [quiet], 4).rows;
    expect(row!.filterReasons['mask: void-turn']!.mean).toBeCloseTo(1 / 3, 12);
  });

  it('leaves the paired table out when grpo did not run', () => {
    const table = ablationTable(start, [c1], 4);
    expect(table.paired).toEqual([]);
    expect(ablationMarkdown(table)).not.toContain('arm - grpo');
  });
});
