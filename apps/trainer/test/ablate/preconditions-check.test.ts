import { describe, expect, it } from 'vitest';
import {
  checkPreconditions,
  reportedVerdict,
  type StartEvaluation,
} from '../../src/experiments/preconditions/preconditions.js';
import type { EvalMetrics } from '../../src/report/metrics.js';

const start = (fields: Partial<EvalMetrics>, source = 'start/seed-1/held-out.json'): StartEvaluation => ({
  metrics: {
    phase: 'eval',
    step: 0,
    label: 'held-out',
    problems: 200,
    accuracy: 0.1,
    passAtK: 0.2,
    toolCallsPerTrajectory: 3.5,
    toolSuccessRate: 0.95,
    unexecutedCorrect: 0.005,
    wastedCallsPerTrajectory: 0.14,
    decisionPointEntropy: 0.23,
    responseTokens: 190,
    seconds: 70,
    ...fields,
  },
  source,
});

describe("issue 48's preconditions, on the start evaluation of seed 1", () => {
  it('meets H1 only at both bounds: at most 1% at luckyShare 0, at least 5% at 0.3', () => {
    const h1 = (atNone: number, atHigh: number) =>
      checkPreconditions(
        new Map([
          [0, start({ unexecutedCorrect: atNone })],
          [0.3, start({ unexecutedCorrect: atHigh })],
        ]),
      ).H1.met;
    expect(h1(0.01, 0.05)).toBe(true);
    expect(h1(0.0125, 0.05)).toBe(false);
    // The experiment's own level 0.3: 3.25% right without a successful call
    expect(h1(0.005, 0.0325)).toBe(false);
  });

  it("reads H2's entropy and H3's wasted and total calls at the main level", () => {
    const at = (fields: Partial<EvalMetrics>) => checkPreconditions(new Map([[0.15, start(fields)]]));
    expect(at({ decisionPointEntropy: 0.2 }).H2.met).toBe(true);
    expect(at({ decisionPointEntropy: 0.199 }).H2.met).toBe(false);
    expect(at({ wastedCallsPerTrajectory: 0.3, toolCallsPerTrajectory: 3 }).H3.met).toBe(true);
    expect(at({ wastedCallsPerTrajectory: 0.3, toolCallsPerTrajectory: 2.9 }).H3.met).toBe(false);
    expect(at({ wastedCallsPerTrajectory: 0.14 }).H3).toMatchObject({
      met: false,
      detail: expect.stringContaining('0.140 wasted, 3.50 calls'),
    });
  });

  it('says which level is missing, and leaves the verdict marked', () => {
    const checks = checkPreconditions(new Map([[0, start({})]]));
    expect(checks.H1).toMatchObject({ met: null, detail: expect.stringContaining('luckyShare 0 and 0.3') });
    expect(checks.H2.met).toBeNull();
    expect(reportedVerdict(checks.H2, 'fails')).toBe('fails (precondition not measured)');
  });

  it('reports a hypothesis whose precondition failed as not tested, whatever the interval says', () => {
    const checks = checkPreconditions(new Map([[0.15, start({})]]));
    expect(reportedVerdict(checks.H3, 'holds')).toBe('not tested (precondition not met)');
    expect(reportedVerdict(checks.H2, 'fails')).toBe('fails');
  });

  it('refuses a start evaluation without the measure, naming its file', () => {
    const { decisionPointEntropy: _, ...older } = start({}).metrics;
    expect(() =>
      checkPreconditions(new Map([[0.15, { metrics: older, source: 'old/held-out.json' }]])),
    ).toThrow('old/held-out.json: no decisionPointEntropy');
  });
});
