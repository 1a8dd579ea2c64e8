import { describe, expect, it } from 'vitest';
import { compareAnswers } from '../src/index';
import { caseClasses } from './cases';
import { heldOutCases, secondHeldOutCases } from './heldOutCases';

describe('isEquivalent on hand-written cases, per comparison class', () => {
  const batches = [
    ...Object.entries(caseClasses),
    ...Object.entries(heldOutCases).map(([name, cases]) => [`held-out ${name}`, cases] as const),
    ...Object.entries(secondHeldOutCases).map(([name, cases]) => [`held-out 2 ${name}`, cases] as const),
  ];
  for (const [className, cases] of batches) {
    it(`${className}: ${cases.length} cases agree with the expected verdict`, () => {
      const disagreements = cases
        .map(([pred, gold, expected]) => ({ pred, gold, expected, verdict: compareAnswers(pred, gold) }))
        .filter((result) => result.verdict.equivalent !== result.expected);
      expect(disagreements).toEqual([]);
    });
  }
});

describe('symbolic comparison beyond floating point', () => {
  it('sees one changed term among a hundred ninth powers (exact probing of rational functions)', () => {
    const sum = Array.from({ length: 100 }, (_, index) => `(x+${index})^{9}`).join('+');
    expect(compareAnswers(sum, sum.replace('(x+0)', '(x+1)'))).toEqual({
      equivalent: false,
      reason: 'not_equivalent',
    });
    expect(compareAnswers(sum, `${sum}+x-x`).equivalent).toBe(true);
  });
});
