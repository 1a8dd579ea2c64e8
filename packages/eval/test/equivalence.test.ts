import { describe, expect, it } from 'vitest';
import { compareAnswers } from '../src/index';
import { caseClasses } from './cases';

describe('isEquivalent on hand-written cases, per comparison class', () => {
  for (const [className, cases] of Object.entries(caseClasses)) {
    it(`${className}: ${cases.length} cases agree with the expected verdict`, () => {
      const disagreements = cases
        .map(([pred, gold, expected]) => ({ pred, gold, expected, verdict: compareAnswers(pred, gold) }))
        .filter((result) => result.verdict.equivalent !== result.expected);
      expect(disagreements).toEqual([]);
    });
  }
});
