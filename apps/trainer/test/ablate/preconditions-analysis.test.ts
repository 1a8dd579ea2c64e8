import { describe, expect, it } from 'vitest';
import {
  h1Slope,
  h3Correlation,
  type PreconditionRun,
  pairedDifference,
  preconditionRun,
  verdict,
} from '../../src/experiments/preconditions/analysis.js';
import { recordedRuns, withRecorded } from '../../src/experiments/preconditions/recorded-runs.js';
import type { EvalMetrics, MetricsLine } from '../../src/report/metrics.js';
import { neutralRlLine } from '../support/metrics-lines.js';

const afterRl = (accuracy: number): EvalMetrics => ({
  phase: 'eval',
  step: 40,
  label: 'after RL',
  problems: 10,
  accuracy,
  passAtK: accuracy,
  toolCallsPerTrajectory: 1,
  toolSuccessRate: 1,
  responseTokens: 80,
  seconds: 1,
  greedy: false,
  unexecutedCorrect: 0.05,
});

/** 40 steps: tool + recovered = 0.5 in steps 1-30 and 0.9 after; wasted calls 1 in the first ten steps, 0 after. */
const lines: MetricsLine[] = [
  ...Array.from({ length: 40 }, (_, i) =>
    neutralRlLine(i + 1, {
      strategies: { direct: 0, tool: i < 30 ? 0.4 : 0.8, recovered: 0.1, 'gave-up': 0, 'stopped-early': 0 },
      wastedCallsPerTrajectory: i < 10 ? 1 : 0,
    }),
  ),
  afterRl(0.25),
  { ...afterRl(0.3), label: 'after RL (greedy)', greedy: true },
];

const run = (arm: string, seed: number, fields: Partial<PreconditionRun>): PreconditionRun => ({
  ...preconditionRun(arm, seed, lines, 'metrics.jsonl'),
  ...fields,
});

describe("issue 48's pre-registered analysis", () => {
  it('reads H1 over steps 1-30 only, the quarters of the steps, and the held-out Avg@2', () => {
    const measured = preconditionRun('grpo', 1, lines, 'metrics.jsonl');
    expect(measured.toolUseShare).toBeCloseTo(0.5, 12);
    expect(measured.wastedEarly).toBe(1);
    expect(measured.wastedLate).toBe(0);
    expect(measured.avgAt2).toBe(0.25);
    expect(measured.unexecutedCorrect).toBe(0.05);
    expect(measured.toolCorrect).toBeCloseTo(0.2, 12);
    expect(measured.greedyAccuracy).toBe(0.3);
  });

  it('refuses an after-RL line without unexecutedCorrect, naming its file', () => {
    const { unexecutedCorrect: _, ...bare } = afterRl(0.25);
    expect(() => preconditionRun('grpo', 1, [...lines.slice(0, 40), bare], 'y.jsonl')).toThrow(
      "y.jsonl: its 'after RL' line has no unexecutedCorrect",
    );
  });

  it('refuses a run with fewer steps than H1 reads, naming its file', () => {
    expect(() => preconditionRun('grpo', 1, lines.slice(10), 'x.jsonl')).not.toThrow();
    expect(() => preconditionRun('grpo', 1, lines.slice(11), 'x.jsonl')).toThrow('x.jsonl: 29 RL steps');
  });

  it('pairs by seed over the seeds both arms have, with the t interval', () => {
    const runs = [
      run('grpo', 1, { avgAt2: 0.1 }),
      run('grpo', 2, { avgAt2: 0.2 }),
      run('grpo', 3, { avgAt2: 0.3 }),
      run('bonus', 1, { avgAt2: 0.12 }),
      run('bonus', 2, { avgAt2: 0.26 }),
    ];
    const paired = pairedDifference(runs, 'bonus', 'avgAt2')!;
    expect(paired.seeds).toEqual([1, 2]);
    expect(paired.mean).toBeCloseTo(0.04, 12);
    // differences 0.02 and 0.06: sd 0.02 * sqrt(2), t(1) = 12.706
    expect(paired.halfWidth).toBeCloseTo((12.706 * 0.02 * Math.SQRT2) / Math.SQRT2, 9);
    expect(verdict(paired, 1)).toBe('fails');
    expect(verdict({ ...paired, halfWidth: 0.01 }, 1)).toBe('holds');
    expect(verdict({ ...paired, halfWidth: 0.01 }, -1)).toBe('fails');
    expect(pairedDifference(runs, 'c1', 'avgAt2')).toBeNull();
  });

  it("takes H1's slope per seed over the levels, then its mean", () => {
    // seed 1: c1 - grpo = 0, 0.03, 0.06 over 0, 0.15, 0.3 (slope 0.2); seed 2: 0, 0, 0.03 (slope 0.1)
    const level = (d1: number, d2: number) => [
      run('grpo', 1, { toolUseShare: 0.4 }),
      run('c1', 1, { toolUseShare: 0.4 + d1 }),
      run('grpo', 2, { toolUseShare: 0.5 }),
      run('c1', 2, { toolUseShare: 0.5 + d2 }),
    ];
    const slope = h1Slope(
      new Map([
        [0, level(0, 0)],
        [0.15, level(0.03, 0)],
        [0.3, level(0.06, 0.03)],
      ]),
    )!;
    expect(slope.mean).toBeCloseTo(0.15, 9);
    expect(slope.n).toBe(2);
    expect(h1Slope(new Map([[0.15, level(0.03, 0)]]))).toBeNull();
  });

  it("correlates wasted calls with Avg@2 within seed (each seed's mean removed)", () => {
    // Within each seed more waste goes with less accuracy; the seeds' levels differ in the opposite direction.
    const runs = [1, 2, 3].flatMap((seed) =>
      [0, 1, 2, 3].map((k) =>
        run(`arm${k}`, seed, { wastedLate: seed + k * 0.1, avgAt2: seed - k * 0.05 + 0.001 * seed * k }),
      ),
    );
    const r = h3Correlation(runs);
    expect(r.n).toBe(12);
    expect(r.r).toBeLessThan(-0.99);
    expect(r.high).toBeLessThan(0);
  });
});

describe('runs of record whose folders are gone', () => {
  // As the analysis wrote them before it measured the held-out split: no unexecutedCorrect, toolCorrect, greedy.
  const { unexecutedCorrect, toolCorrect, greedyAccuracy, ...older } = run('bonus', 1, {});
  const json = {
    runs: { '0.15': { runs: [older, { ...older, seed: 2, greedyAccuracy: null }] }, '0': { runs: [] } },
  };

  it('reads the measures recorded per level, a measure added later as NaN', () => {
    const levels = recordedRuns(JSON.parse(JSON.stringify(json)), 'analysis.json');
    expect([...levels.keys()].sort()).toEqual([0, 0.15]);
    const [first, second] = levels.get(0.15)!;
    expect(first).toEqual({
      ...older,
      unexecutedCorrect: Number.NaN,
      toolCorrect: Number.NaN,
      greedyAccuracy: Number.NaN,
    });
    expect(second!.seed).toBe(2);
    expect(second!.greedyAccuracy).toBeNaN();
    expect(unexecutedCorrect + toolCorrect + greedyAccuracy).toBeGreaterThan(0);
  });

  it('refuses a malformed record, naming the file and the field', () => {
    const broken = { runs: { '0.15': { runs: [{ ...older, avgAt2: 'high' }] } } };
    expect(() => recordedRuns(broken, 'analysis.json')).toThrow(
      /^analysis\.json: runs\.0\.15\.runs\.0\.avgAt2: /,
    );
  });

  it('counts a recorded run where no folder measured it, and a measured run once', () => {
    const recorded = [run('grpo', 1, { greedyAccuracy: Number.NaN }), run('bonus', 1, {})];
    const measured = [run('grpo', 1, {})];
    const runs = withRecorded(measured, recorded, 'analysis.json');
    expect(runs.map((r) => `${r.arm} ${r.seed}`)).toEqual(['grpo 1', 'bonus 1']);
    expect(runs[0]).toBe(measured[0]);
  });

  it('stops when a measured run does not give its recorded measures again', () => {
    expect(() =>
      withRecorded(
        [run('grpo', 3, { toolUseShare: 0.5 })],
        [run('grpo', 3, { toolUseShare: 0.51 })],
        'a.json',
      ),
    ).toThrow('a.json: grpo seed 3 not reproduced: toolUseShare recorded 0.51, measured 0.5');
  });
});
