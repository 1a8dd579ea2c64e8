import type { EvalMetrics } from '../../report/metrics.js';

// The pre-registered preconditions of issue 48's experiment (docs/experiments/preconditions.md, "Preconditions"),
// checked on the start evaluation of seed 1 at each lucky-answer level: a hypothesis whose precondition fails is
// reported as not tested, whatever its result.

export type Hypothesis = 'H1' | 'H2' | 'H3';

/** The start evaluation of seed 1 at one luckyShare level, and the file it came from (named in errors). */
export interface StartEvaluation {
  metrics: EvalMetrics;
  source: string;
}

export interface PreconditionCheck {
  hypothesis: Hypothesis;
  /** Null while a start evaluation it needs is not there. */
  met: boolean | null;
  /** The rule and what was measured, in words. */
  detail: string;
}

/** The luckyShare of the main ablation, where H2's and H3's preconditions are measured. */
const MAIN_LEVEL = 0.15;

type StartMeasure =
  | 'unexecutedCorrect'
  | 'decisionPointEntropy'
  | 'wastedCallsPerTrajectory'
  | 'toolCallsPerTrajectory';

function measure(start: StartEvaluation, field: StartMeasure): number {
  const value = start.metrics[field];
  if (value === undefined) throw new Error(`${start.source}: no ${field}, which a precondition reads`);
  return value;
}

const percent = (share: number) => `${(100 * share).toFixed(2)}%`;

/** One precondition: `not measured` while a start evaluation of a level it reads is missing. */
function check(
  hypothesis: Hypothesis,
  rule: string,
  levels: readonly number[],
  starts: ReadonlyMap<number, StartEvaluation | undefined>,
  evaluate: (at: (level: number) => StartEvaluation) => { met: boolean; measured: string },
): PreconditionCheck {
  if (levels.some((level) => starts.get(level) === undefined))
    return {
      hypothesis,
      met: null,
      detail: `${rule}: not measured (no start evaluation of seed 1 at luckyShare ${levels.join(' and ')})`,
    };
  const { met, measured } = evaluate((level) => starts.get(level)!);
  return { hypothesis, met, detail: `${rule}: ${measured}` };
}

/** Checks H1-H3's preconditions on the start evaluations of seed 1, keyed by luckyShare. */
export function checkPreconditions(
  starts: ReadonlyMap<number, StartEvaluation | undefined>,
): Record<Hypothesis, PreconditionCheck> {
  return {
    H1: check(
      'H1',
      'right without a successful call at most 1% at luckyShare 0 and at least 5% at 0.3',
      [0, 0.3],
      starts,
      (at) => {
        const [atNone, atHigh] = [measure(at(0), 'unexecutedCorrect'), measure(at(0.3), 'unexecutedCorrect')];
        return {
          met: atNone <= 0.01 && atHigh >= 0.05,
          measured: `${percent(atNone)} at 0, ${percent(atHigh)} at 0.3`,
        };
      },
    ),
    H2: check(
      'H2',
      'decision-point entropy at least 0.2 nats at luckyShare 0.15',
      [MAIN_LEVEL],
      starts,
      (at) => {
        const entropy = measure(at(MAIN_LEVEL), 'decisionPointEntropy');
        return { met: entropy >= 0.2, measured: `${entropy.toFixed(3)} nats` };
      },
    ),
    H3: check(
      'H3',
      'at least 0.3 wasted calls and 3 or more tool calls per trajectory at luckyShare 0.15',
      [MAIN_LEVEL],
      starts,
      (at) => {
        const [wasted, calls] = [
          measure(at(MAIN_LEVEL), 'wastedCallsPerTrajectory'),
          measure(at(MAIN_LEVEL), 'toolCallsPerTrajectory'),
        ];
        return {
          met: wasted >= 0.3 && calls >= 3,
          measured: `${wasted.toFixed(3)} wasted, ${calls.toFixed(2)} calls`,
        };
      },
    ),
  };
}

/** A verdict as the pre-registration reports it: `not tested` where its hypothesis' precondition failed. */
export function reportedVerdict(check: PreconditionCheck, verdict: string): string {
  if (check.met === false) return 'not tested (precondition not met)';
  return check.met === null ? `${verdict} (precondition not measured)` : verdict;
}
