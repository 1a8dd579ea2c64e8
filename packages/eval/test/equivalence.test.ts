import { describe, expect, it } from 'vitest';
import { compareAnswers } from '../src/index';
import { caseClasses } from './cases';
import { heldOutCases } from './heldOutCases';

describe('isEquivalent on hand-written cases, per comparison class', () => {
  const batches = [
    ...Object.entries(caseClasses),
    ...Object.entries(heldOutCases).map(([name, cases]) => [`held-out ${name}`, cases] as const),
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
