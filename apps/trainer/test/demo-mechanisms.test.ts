import type { RlStepMetrics } from '@taorl/rl';
import { describe, expect, it } from 'vitest';
import { summarizeRun } from '../src/experiments/ablate/run-summary.js';
import { demoMechanisms } from '../src/experiments/demo/demo-mechanisms.js';
import type { EvalMetrics } from '../src/report/metrics.js';
import { trendNames } from '../src/report/rl-trends.js';
import { neutralRlLine } from './support/metrics-lines.js';

const strategies = (direct: number, stoppedEarly: number) => ({
  direct,
  tool: 1 - direct - stoppedEarly,
  recovered: 0,
  'gave-up': 0,
  'stopped-early': stoppedEarly,
});

/**
 * Eight steps: early = steps 0-1, late = steps 6-7 (a quarter each). Step 1 refilled (2 rollout batches), so its
 * all-failed-but-right share counts twice; the middle steps differ from both ends, so a wrong window shows.
 */
const steps: RlStepMetrics[] = Array.from({ length: 8 }, (_, i) =>
  neutralRlLine(i, {
    toolCallsPerTrajectory: i < 2 ? 0.5 : i < 6 ? 2 : 1.5,
    strategies: i < 2 ? strategies(0.4, 0.1) : i < 6 ? strategies(0, 0) : strategies(0.1, 0.05),
    allFailedCorrect: i === 0 ? 0.3 : i === 1 ? 0.06 : 0.5,
    genBatches: i === 1 ? 2 : 1,
    filterDrops: { 'all-tool-calls-failed': i, 'all-correct': 3 },
    bonus: { tokens: 10, mean: 0.1, max: 0.2 },
    decisionPoints: {
      count: i === 0 ? 1 : i === 1 ? 3 : 2,
      meanEntropy: i === 0 ? 0.4 : i === 1 ? 0.2 : i < 6 ? 0.9 : 0.1,
      bonusTokens: 2,
    },
  }),
);

describe('demoMechanisms', () => {
  it('compares the first and the last quarter of the steps', () => {
    const m = demoMechanisms(steps);
    expect(m.earlySteps).toBe(2);
    // (0.3 x 1 batch + 0.06 x 2 batches) / 3 batches: the share of the early rollouts, not the mean of the shares.
    expect(m.allFailedCorrectEarly).toBeCloseTo(0.14, 12);
    expect(m.c1Dropped).toBe(28);
    expect(m.decisionPointBonusShare).toBeCloseTo(16 / 80, 12);
    expect(m.trends.toolCallsPerTrajectory).toEqual({ early: 0.5, late: 1.5 });
    // Weighted by decision points: (1 x 0.4 + 3 x 0.2) / 4 early, 0.1 late.
    expect(m.trends.decisionPointEntropy.early).toBeCloseTo(0.25, 12);
    expect(m.trends.decisionPointEntropy.late).toBeCloseTo(0.1, 12);
    expect(m.trends.direct).toEqual({ early: 0.4, late: 0.1 });
    expect(m.trends['stopped-early']).toEqual({ early: 0.1, late: 0.05 });
  });

  it('takes at least one step for each end of a short run, and says NaN where nothing was measured', () => {
    const short = steps
      .slice(0, 3)
      .map(({ strategies: _, ...line }) => ({ ...line, bonus: { tokens: 0, mean: 0, max: 0 } }));
    const m = demoMechanisms(short);
    expect(m.earlySteps).toBe(1);
    expect(m.allFailedCorrectEarly).toBeCloseTo(0.3, 12);
    expect(m.trends.toolCallsPerTrajectory).toEqual({ early: 0.5, late: 2 });
    expect(m.decisionPointBonusShare).toBeNaN();
    expect(m.trends.direct.early).toBeNaN();
  });

  it('reports the same trends as the ablation does for the same steps', () => {
    const evalLine = (label: string, greedy: boolean): EvalMetrics => ({
      phase: 'eval',
      step: 8,
      label,
      problems: 4,
      accuracy: 0.5,
      passAtK: 0.5,
      toolCallsPerTrajectory: 1,
      toolSuccessRate: 1,
      responseTokens: 80,
      seconds: 1,
      greedy,
    });
    const lines = [...steps, evalLine('after RL', false), evalLine('after RL (greedy)', true)];
    const summary = summarizeRun(lines, { groups: 4, groupSize: 8 }, 'metrics.jsonl');
    const m = demoMechanisms(steps);
    for (const name of trendNames) expect(m.trends[name]).toEqual(summary.trends[name]);
    expect(m.decisionPointBonusShare).toBe(summary.decisionPointBonusShare);
  });
});
