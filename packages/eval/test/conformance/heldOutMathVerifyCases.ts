import type { ConformanceCase } from './mathVerifyCases';

/**
 * Held-out suite A of issue 37: Math-Verify's tests added after the commit the project's Math-Verify suite
 * (mathVerifyCases.ts, 5d148cf) was ported from, so the grader was never tuned on them. Each case is a
 * (prediction, gold, verdict) fact of the source test, graded as a whole response as Math-Verify parses both sides
 * (`verify(parse(gold), parse(pred))`); only the data is taken. Sources (huggingface/Math-Verify):
 *
 * - mixed: tests/test_mixed_number_extraction.py @ 05aa3a67e1e5aa4a0dbecea17550a17cc2d5ed2d
 * - span: tests/test_failed_latex_span.py @ 056ad6253a41b01e49072623b7e2c88ded7d82af
 * - percent: tests/test_all.py (test_percent_notation, the rows marked "failed") @ cf14bc47e798017458fa7f60138da640065351ce
 *
 * `part` 'untouched' marks every third case of each group: those were never looked at while the grader was
 * changed, and are reported apart as the true held-out measure (docs/results/grader-agreement.md).
 */
export interface HeldOutCase extends ConformanceCase {
  readonly source: string;
}

const mixed = 'math-verify/test_mixed_number_extraction';
const span = 'math-verify/test_failed_latex_span';
const percent = 'math-verify/test_all';

/** An invalid mixed number equals none of the finite values its parts could be read as. */
const noFiniteReading = (pred: string, golds: readonly string[]): HeldOutCase[] =>
  golds.map((gold) => ({ source: mixed, gold, pred, expected: false }));

const percentSuffixes = ['%', ' %', 'percent', ' percent', 'percentage', ' percentage', 'pct', ' pct'];

export const heldOutMathVerifyCases: Record<string, readonly HeldOutCase[]> = {
  'numbers in prose: mixed numbers, separators, currency': [
    { source: mixed, gold: '40/9', pred: '4 4/9', expected: true },
    { source: mixed, gold: '-40/9', pred: '-4 4/9', expected: true },
    { source: mixed, gold: '71/6', pred: '11 5/6', expected: true },
    { source: mixed, gold: '71/6', pred: '+11 5/6', expected: true },
    { source: mixed, gold: '40/9', pred: 'The answer is 4 4/9.', expected: true },
    { source: mixed, gold: '4', pred: 'The answer is 4 4/9.', expected: false },
    { source: mixed, gold: '4/9', pred: '0 4/9', expected: true },
    { source: mixed, gold: '4', pred: '4 0/9', expected: true },
    { source: mixed, gold: '9004/9', pred: '1 000 4/9', expected: true },
    { source: mixed, gold: '40/9', pred: '4 + 4/9', expected: true },
    { source: mixed, gold: '5', pred: '10/2', expected: true },
    { source: mixed, gold: '1000', pred: '1 000', expected: true },
    { source: mixed, gold: '5', pred: '$5.00', expected: true },
    { source: mixed, gold: '7/25', pred: '28%', expected: true },
    { source: mixed, gold: '4/9', pred: 'There are 4 objects and 4/9 remain.', expected: true },
    { source: mixed, gold: '2', pred: '4 4/9 2', expected: true },
    { source: mixed, gold: '103/9', pred: '11 - 4/9', expected: false },
    { source: mixed, gold: '95/9', pred: '11 + 4/9', expected: false },
  ],
  'numbers in prose: invalid mixed numbers and juxtaposed numbers': [
    ...noFiniteReading('4 4/0', ['4', '0']),
    ...noFiniteReading('4 0/0', ['4', '0']),
    ...noFiniteReading('-4 0/0', ['-4', '0']),
    ...noFiniteReading('0 0/0', ['0']),
    ...noFiniteReading('1 000 0/0', ['1000', '0']),
    ...noFiniteReading('-1 000 0/0', ['-1000', '0']),
    ...noFiniteReading('11 6/6', ['11', '1', '12', '10']),
    ...noFiniteReading('11 7/6', ['11', '7/6', '73/6', '59/6']),
    ...noFiniteReading('The answer is 11 6/6.', ['11', '1', '12', '10']),
    ...noFiniteReading('The answer is 4 0/0.', ['4', '0']),
    { source: mixed, gold: '139/90', pred: '11/10 4/9', expected: false },
    { source: mixed, gold: '103/9', pred: '11.0 4/9', expected: false },
    { source: mixed, gold: '103/9', pred: '(11) 4/9', expected: false },
    { source: mixed, gold: '139/90', pred: '11/10\n4/9', expected: false },
    { source: mixed, gold: '71/6', pred: '11\n5/6', expected: false },
    { source: mixed, gold: '71/6', pred: '11\r\n5/6', expected: false },
  ],
  'percent after mixed numbers and in boxes': [
    ...percentSuffixes.flatMap((suffix): HeldOutCase[] => [
      { source: mixed, gold: '40/900', pred: `4 4/9${suffix}`, expected: true },
      { source: mixed, gold: '40/9', pred: `4 4/9${suffix}`, expected: false },
    ]),
    { source: percent, gold: '$28\\%$', pred: '$\\boxed{28 pct}', expected: true },
    { source: percent, gold: '$28\\%$', pred: '$\\boxed{28 percent}', expected: true },
    { source: percent, gold: '$28\\%$', pred: '$\\boxed{28 percentage}', expected: true },
  ],
  'answer phrases, last answers, unreadable LaTeX spans': [
    {
      source: span,
      gold: '42',
      pred: 'Final answer is $\\sum_{k=0}^n\\bigl(k\\bigr)$. I hope. 42',
      expected: true,
    },
    {
      source: span,
      gold: '42',
      pred: 'Final answer is $\\sum_{k=0}^n\\bigl(k\\bigr)$. I hope. $42$',
      expected: true,
    },
    {
      source: span,
      gold: '1/2',
      pred: 'Final answer is $\\sum_{k=0}^n\\bigl(k\\bigr)$. I hope. 1/2',
      expected: true,
    },
    { source: span, gold: '42', pred: '$\\sum_{k=0}^n\\bigl(k\\bigr)$ and $42$', expected: true },
    { source: span, gold: '42', pred: '$42$ and $\\sum_{k=0}^n\\bigl(k\\bigr)$', expected: true },
    { source: span, gold: '42', pred: '42', expected: true },
  ],
};
