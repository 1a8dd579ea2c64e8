import { describe, expect, it } from 'vitest';
import { commitmentCases } from './commitmentCases';
import { agreementOf, runSuite } from './suite';
import { commitmentSuite } from './suites';

// Issue 45: a stated answer commits, a hedge or a list of options is never paid, a rejected value never is
// (docs/explanation/grading.md, "What a response commits to"; docs/results/grader-agreement.md reports the suite).
describe('commitment (issue 45)', () => {
  const agreement = agreementOf(runSuite(commitmentSuite));

  it(`covers every form of the issue in math and letters (${Object.values(commitmentCases).flat().length} cases)`, () => {
    expect(agreement.cases).toBeGreaterThanOrEqual(74);
    expect(Object.keys(commitmentCases).filter((group) => group.startsWith('letters')).length).toBe(2);
  });

  it('pays no hedge, no rejected value and nothing written after a stated answer', () => {
    expect(
      agreement.falseEqual.map(({ group, testCase, extracted }) => ({ group, ...testCase, extracted })),
    ).toEqual([]);
  });

  it('pays every stated answer', () => {
    expect(
      agreement.disagreements.map(({ group, testCase, extracted }) => ({ group, ...testCase, extracted })),
    ).toEqual([]);
  });
});
