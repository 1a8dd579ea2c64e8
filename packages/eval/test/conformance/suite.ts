import { compareAnswers, type GradeOptions, grade } from '../../src/index';
import type { ConformanceCase } from './mathVerifyCases';

/** A case graded against its expected verdict: what was extracted and why it was decided so. */
export interface CaseOutcome {
  readonly group: string;
  /** The case's position in its group. */
  readonly index: number;
  readonly testCase: ConformanceCase;
  readonly correct: boolean;
  readonly extracted: string | null;
  readonly reason: string;
}

export interface Suite {
  readonly name: string;
  /** Where the cases come from, for the report. */
  readonly source: string;
  readonly groups: Record<string, readonly ConformanceCase[]>;
  /**
   * 'response': the prediction is a whole response and the gold may be a worked solution (grade); 'answer': both
   * are answers already extracted (compareAnswers), as the source grader compares them.
   */
  readonly level: 'response' | 'answer';
  /** Options the source grader compares with (Qwen's rel_tol 1e-4). */
  readonly options?: GradeOptions;
  /** Cases decided differently on purpose, with the reason. */
  readonly differences: readonly Difference[];
}

export function runSuite(suite: Suite): CaseOutcome[] {
  return Object.entries(suite.groups).flatMap(([group, cases]) =>
    cases.map((testCase, index) => {
      const options = { ...suite.options, ...precisionOptions(testCase) };
      if ((testCase.level ?? suite.level) === 'answer') {
        const verdict = compareAnswers(testCase.pred, testCase.gold, options);
        return {
          group,
          index,
          testCase,
          correct: verdict.equivalent,
          extracted: testCase.pred,
          reason: verdict.reason,
        };
      }
      const result = grade(testCase.pred, testCase.gold, options);
      return {
        group,
        index,
        testCase,
        correct: result.correct,
        extracted: result.extracted,
        reason: result.reason,
      };
    }),
  );
}

/**
 * Math-Verify rounds to p digits after the point; half a unit of the p-th significant digit is as close as a
 * relative tolerance gets to that (0.33 against 1/3 at p = 2).
 */
function precisionOptions(testCase: ConformanceCase): GradeOptions {
  if (testCase.relTol !== undefined) return { relTol: testCase.relTol };
  return testCase.precision === undefined ? {} : { relTol: 10 ** (1 - testCase.precision) / 2 };
}

/** A case decided differently on purpose: its gold, a part of its prediction that singles it out, and why. */
export interface Difference {
  readonly gold: string;
  readonly predIncludes: string;
  readonly reason: string;
}

export function differenceFor(suite: Suite, testCase: ConformanceCase): Difference | undefined {
  return suite.differences.find(
    (difference) => difference.gold === testCase.gold && testCase.pred.includes(difference.predIncludes),
  );
}

export interface Agreement {
  readonly cases: number;
  readonly agreed: number;
  readonly disagreements: readonly CaseOutcome[];
  /** Cases the suite calls "not equal" that the grader calls equal: the ones that pay for wrong answers. */
  readonly falseEqual: readonly CaseOutcome[];
}

export function agreementOf(outcomes: readonly CaseOutcome[]): Agreement {
  const disagreements = outcomes.filter((outcome) => outcome.correct !== outcome.testCase.expected);
  return {
    cases: outcomes.length,
    agreed: outcomes.length - disagreements.length,
    disagreements,
    falseEqual: disagreements.filter((outcome) => outcome.correct),
  };
}

/**
 * The untouched part of a held-out suite: every third case of each group, kept out of view while the grader is
 * changed, so its agreement stays a held-out measure whatever was tuned on the rest.
 */
export function isUntouched(outcome: CaseOutcome): boolean {
  return outcome.index % 3 === 2;
}
