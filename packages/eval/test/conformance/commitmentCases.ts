import type { ConformanceCase } from './mathVerifyCases';

/**
 * Whole responses written for issue 45 around what a response commits to: a stated answer followed by a check, a
 * P.S. or a rejected alternative; hedges between two values; "X, not Y"; in mathematics and in option letters. The
 * forms the issue quotes are here verbatim (`Final answer is $7$. I hope. $42$`, `\boxed{A, C}`, `So C.`, ...); the
 * rest are written for it. Each response is graded with `grade` against the gold; `expected` is whether the
 * response committed to the gold. A response that commits to one value is paired with that value (equal) and with
 * the other value it mentions (not equal); a hedge is paired with each of its values (never equal).
 */
const stated = (pred: string, committed: string, other: string): ConformanceCase[] => [
  { pred, gold: committed, expected: true },
  { pred, gold: other, expected: false },
];
const hedged = (pred: string, ...values: string[]): ConformanceCase[] =>
  values.map((gold) => ({ pred, gold, expected: false }));

export const commitmentCases: Record<string, readonly ConformanceCase[]> = {
  'math: a check after the stated answer': [
    ...stated('Final answer is $7$. I hope. $42$', '7', '42'),
    ...stated('The answer is $x+1$. $42$', 'x+1', '42'),
    ...stated('The answer is 7. We verify: $7 \\times 6 = 42$.', '7', '42'),
    ...stated('Answer: $12$. Check: $12 - 5 = 7$, which matches.', '12', '7'),
    ...stated(
      'The final answer is $\\frac{1}{2}$. Checking with $n = 3$ gives $\\frac{1}{3}$.',
      '\\frac12',
      '\\frac13',
    ),
    ...stated('Therefore, the answer is $5$; substituting back, $2 \\cdot 5 = 10$.', '5', '10'),
    ...stated('The answer is $\\boxed{7}$. Verification: $7^2 = 49$.', '7', '49'),
  ],
  'math: a P.S. after the stated answer': [
    ...stated(
      'The answer is $24$.\n\nP.S. If the question meant ordered pairs, it would be $48$.',
      '24',
      '48',
    ),
    ...stated('The answer is 24. P.S. with repetition allowed it would be 48.', '24', '48'),
    ...stated('Final answer: $9$. PS: the product of the digits is $0$.', '9', '0'),
  ],
  'math: a rejected alternative ("X, not Y")': [
    ...stated('The answer is $6$, not $5$.', '6', '5'),
    ...stated('Answer: 6, not 5', '6', '5'),
    ...stated('So the answer is $\\frac{3}{4}$ rather than $\\frac{4}{3}$.', '\\frac34', '\\frac43'),
    ...stated('The final answer is $12$ (not $13$, which double-counts the corner).', '12', '13'),
    ...stated('So $x = 6$, not $5$.', '6', '5'),
    ...stated('La réponse est 6, pas 5.', '6', '5'),
    ...stated('答案是6，不是5。', '6', '5'),
  ],
  'math: two values offered as alternatives': [
    ...hedged('The answer is either $3$ or $4$.', '3', '4'),
    ...hedged('The answer is $3$ or $4$.', '3', '4'),
    ...hedged('Answer: 3 or 4', '3', '4'),
    ...hedged('It is either 3 or 4.', '3', '4'),
    ...hedged('The final answer is $3$ or maybe $4$.', '3', '4'),
    ...hedged('Answer: 5. Or maybe 7.', '5', '7'),
    ...hedged('So the value could be $3$ or $4$.', '3', '4'),
    ...hedged('\\boxed{3} or \\boxed{4}', '3', '4'),
    ...hedged('答案是3或4。', '3', '4'),
  ],
  'math: commitments that stay paid': [
    { pred: 'The solutions are $x = 1$ or $x = 2$.', gold: '1, 2', expected: true },
    { pred: 'The answer is $12$ and $13$.', gold: '12, 13', expected: true },
    { pred: 'The final answer is 5. I hope it is correct.', gold: '5', expected: true },
    { pred: 'The answer is 3.5. Done.', gold: '3.5', expected: true },
    { pred: 'So the answer is $n = 34$, the largest such $n$.', gold: '34', expected: true },
  ],
  'letters: a list of options or a hedge': [
    ...hedged('\\boxed{A, C}', 'A', 'C'),
    ...hedged('\\boxed{(C)(A)}', 'C', 'A'),
    ...hedged('The answer is A, B, C, or D.', 'A', 'D'),
    ...hedged('Answer: C, A, B', 'C', 'B'),
    ...hedged('A\nB\nC\nD', 'A', 'D'),
    ...hedged('Either B or C.', 'B', 'C'),
    ...hedged('The answer is B or possibly C.', 'B', 'C'),
    ...hedged('\\boxed{B} or \\boxed{C}', 'B', 'C'),
    ...hedged('The answer is B/C.', 'B', 'C'),
    ...hedged('A) Oxygen\nB) Nitrogen\nC) Argon\nD) Carbon dioxide', 'A', 'D'),
  ],
  'letters: the last committed box or answer line': [
    ...stated('\\boxed{C}\\boxed{A}', 'A', 'C'),
    ...stated('So C.', 'C', 'A'),
    ...stated('Answer: c) Argon', 'C', 'A'),
    ...stated('Answer: C, not A', 'C', 'A'),
    ...stated('The answer is (B) rather than (D).', 'B', 'D'),
    ...stated('Answer: B\n\nP.S. If the question meant the ground state, A would be right.', 'B', 'A'),
    ...stated('Answer: D. Double-check: options A and C fail the symmetry test.', 'D', 'C'),
  ],
};
