import { describe, expect, it } from 'vitest';
import { compareAnswers, grade } from '../../src/index';
import { nearMissCases, responseNearMissCases } from './nearMissCases';
import { agreementOf, differenceFor, isUntouched, runSuite } from './suite';
import { heldOutGraderSuite, heldOutMathVerifySuite, lightevalSuite, suites } from './suites';

// Conformance with the public graders' own test cases (docs/benchmarks/eval.md reports the numbers).
describe.each(suites)('conformance with $name', (suite) => {
  const outcomes = runSuite(suite);
  const agreement = agreementOf(outcomes);

  it('decides every case as the suite does, except the listed deliberate differences', () => {
    const unlisted = agreement.disagreements
      .filter((outcome) => differenceFor(suite, outcome.testCase) === undefined)
      .map(({ group, testCase, extracted, reason }) => ({ group, ...testCase, extracted, reason }));
    expect(unlisted).toEqual([]);
  });

  it('lists no difference that the grader no longer makes (the list stays honest)', () => {
    const disagreeing = new Set(agreement.disagreements.map((outcome) => outcome.testCase));
    const stale = suite.differences.filter(
      (difference) =>
        !outcomes.some(
          (outcome) =>
            disagreeing.has(outcome.testCase) && differenceFor(suite, outcome.testCase) === difference,
        ),
    );
    expect(stale).toEqual([]);
  });

  it('agrees on at least 95% of the cases', () => {
    expect(agreement.agreed / agreement.cases).toBeGreaterThanOrEqual(0.95);
  });
});

describe('near misses', () => {
  const cases = Object.entries(nearMissCases).flatMap(([group, pairs]) =>
    pairs.map(([pred, gold]) => ({ group, pred, gold })),
  );

  it(`has at least 100 cases (${cases.length})`, () => {
    expect(cases.length).toBeGreaterThanOrEqual(100);
  });

  it('never grades a near miss as equal, in either direction', () => {
    const falseEqual = cases.filter(
      ({ pred, gold }) => compareAnswers(pred, gold).equivalent || compareAnswers(gold, pred).equivalent,
    );
    expect(falseEqual).toEqual([]);
  });

  it('never reads an answer equal to the gold out of a response that states none', () => {
    const falseEqual = Object.entries(responseNearMissCases).flatMap(([group, pairs]) =>
      pairs
        .filter(([response, gold]) => grade(response, gold).correct)
        .map(([response, gold]) => ({ group, response, gold, extracted: grade(response, gold).extracted })),
    );
    expect(falseEqual).toEqual([]);
  });
});

// The second held-out suite of issue 37 agrees below the 95% target (docs/results/grader-agreement.md says by how
// much and why): every disagreement must still be a listed one, no listed one stale, none may pay a wrong answer,
// and the agreement measured in the fourth round (23 / 30) is a floor.
describe('held-out: lighteval', () => {
  const agreement = agreementOf(runSuite(lightevalSuite));

  it('agrees at least as often as when it was last measured', () => {
    expect(agreement.agreed / agreement.cases).toBeGreaterThanOrEqual(23 / 30);
  });

  it('decides every case as the suite does, except the listed differences, and grades no wrong answer equal', () => {
    const unlisted = agreement.disagreements.filter(
      (outcome) => differenceFor(lightevalSuite, outcome.testCase) === undefined,
    );
    expect(unlisted.map(({ testCase }) => testCase)).toEqual([]);
    expect(agreement.falseEqual).toEqual([]);
    const stale = lightevalSuite.differences.filter(
      (difference) =>
        !agreement.disagreements.some(
          (outcome) => differenceFor(lightevalSuite, outcome.testCase) === difference,
        ),
    );
    expect(stale).toEqual([]);
  });
});

// The two held-out suites of issue 37 (docs/results/grader-agreement.md): no wrong answer graded equal, every
// disagreement a listed one, and the agreement measured when they were written kept as a floor, for the whole
// suite and for its untouched third. Suite A's floor went from 68 to 67 with issue 45: its case `Final answer is
// $\sum_{k=0}^n\bigl(k\bigr)$. I hope. $42$` (equal to 42 for Math-Verify, which cannot parse the sum) has the form
// of the issue's `Final answer is $7$. I hope. $42$`, which must pay the stated 7 and never the 42 after it.
describe.each([
  { suite: heldOutMathVerifySuite, floor: 67 / 74, untouchedFloor: 22 / 24 },
  { suite: heldOutGraderSuite, floor: 109 / 109, untouchedFloor: 34 / 34 },
])('$suite.name', ({ suite, floor, untouchedFloor }) => {
  const outcomes = runSuite(suite);
  const agreement = agreementOf(outcomes);
  const untouched = agreementOf(outcomes.filter(isUntouched));

  it('grades no wrong answer equal', () => {
    expect(agreement.falseEqual.map(({ testCase }) => testCase)).toEqual([]);
  });

  it('decides every case as the suite does, except the listed differences, none of them stale', () => {
    const unlisted = agreement.disagreements.filter(
      (outcome) => differenceFor(suite, outcome.testCase) === undefined,
    );
    expect(unlisted.map(({ group, testCase, extracted }) => ({ group, ...testCase, extracted }))).toEqual([]);
    const stale = suite.differences.filter(
      (difference) =>
        !agreement.disagreements.some((outcome) => differenceFor(suite, outcome.testCase) === difference),
    );
    expect(stale).toEqual([]);
  });

  it('agrees at least as often as when it was measured', () => {
    expect(agreement.agreed / agreement.cases).toBeGreaterThanOrEqual(floor);
    expect(untouched.agreed / untouched.cases).toBeGreaterThanOrEqual(untouchedFloor);
  });
});
