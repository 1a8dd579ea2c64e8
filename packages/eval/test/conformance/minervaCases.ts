import type { ConformanceCase } from './mathVerifyCases';

/**
 * Cases of lm-evaluation-harness's minerva_math (EleutherAI/lm-evaluation-harness,
 * lm_eval/tasks/minerva_math/utils.py, MIT licence): its four few-shot solutions graded as responses against
 * their own solutions (the gold is a worked solution: Minerva takes its last box), each against another's, and one
 * case per rule of its answer normalisation (normalize_final_answer: SUBSTITUTIONS, REMOVED_EXPRESSIONS, the
 * shorthand \\frac12 and \\sqrt2, thousands commas, the text after the last "=") and of its answer extraction
 * ("Final Answer: The final answer is X. I hope it is correct."). These go through grade(): `pred` is the
 * response, `gold` the solution or answer.
 */
const finalAnswer = (answer: string): string =>
  `Solution omitted.\nFinal Answer: The final answer is ${answer}. I hope it is correct.`;

const solutions: readonly string[] = [
  'The expressions inside each square root must be non-negative. Therefore, $x-2 \\ge 0$, so $x\\ge2$, and $5 - x \\ge 0$, so $x \\le 5$. Also, the denominator cannot be equal to zero, so $5-x>0$, which gives $x<5$. Therefore, the domain of the expression is $\\boxed{[2,5)}$.\nFinal Answer: The final answer is $[2,5)$. I hope it is correct.',
  'We have that $\\det (\\mathbf{A} \\mathbf{B}) = (\\det \\mathbf{A})(\\det \\mathbf{B}) = (2)(12) = \\boxed{24}.$\nFinal Answer: The final answer is $24$. I hope it is correct.',
  'If Terrell lifts two 20-pound weights 12 times, he lifts a total of $2\\cdot 12\\cdot20=480$ pounds of weight.  If he lifts two 15-pound weights instead for $n$ times, he will lift a total of $2\\cdot15\\cdot n=30n$ pounds of weight.  Equating this to 480 pounds, we can solve for $n$:\n\\begin{align*}\n30n&=480\\\n\\Rightarrow\\qquad n&=480/30=\\boxed{16}\n\\end{align*}\nFinal Answer: The final answer is $16$. I hope it is correct.',
  'If we multiply the first equation by $-\\frac{3}{2}$, we obtain\n\n$$6y-9x=-\\frac{3}{2}a.$$Since we also know that $6y-9x=b$, we have\n\n$$-\\frac{3}{2}a=b\\Rightarrow\\frac{a}{b}=\\boxed{-\\frac{2}{3}}.$$\nFinal Answer: The final answer is $-\\frac{2}{3}$. I hope it is correct.',
];

export const minervaCases: Record<string, readonly ConformanceCase[]> = {
  'few-shot solutions': [
    ...solutions.map((solution) => ({ pred: solution, gold: solution, expected: true })),
    ...solutions.map((solution, index) => ({
      pred: solution,
      gold: solutions[(index + 1) % solutions.length]!,
      expected: false,
    })),
  ],
  'normalize_final_answer rules': [
    { pred: finalAnswer('$5$'), gold: '5', expected: true },
    { pred: finalAnswer('$x = 5$'), gold: '5', expected: true },
    { pred: finalAnswer('16 dollars'), gold: '16', expected: true },
    { pred: finalAnswer('$\\$18.90$'), gold: '18.90', expected: true },
    { pred: finalAnswer('10 inches'), gold: '10', expected: true },
    { pred: finalAnswer('$8 \\text{ cm}^2$'), gold: '8', expected: true },
    { pred: finalAnswer('$90^\\circ$'), gold: '90', expected: true },
    { pred: finalAnswer('$90^{\\circ}$'), gold: '90', expected: true },
    { pred: finalAnswer('5 ways'), gold: '5', expected: true },
    { pred: finalAnswer('$12$ students'), gold: '12', expected: true },
    { pred: finalAnswer('100,000'), gold: '100000', expected: true },
    { pred: finalAnswer('$2,\\!000$'), gold: '2000', expected: true },
    { pred: finalAnswer('$1{,}000$'), gold: '1000', expected: true },
    { pred: finalAnswer('$\\frac12$'), gold: '\\frac{1}{2}', expected: true },
    { pred: finalAnswer('$\\sqrt2$'), gold: '\\sqrt{2}', expected: true },
    { pred: finalAnswer('$\\textbf{(C)}$'), gold: '\\text{(C)}', expected: true },
    { pred: finalAnswer('$\\boxed{7}$'), gold: '7', expected: true },
    { pred: finalAnswer('$\\dfrac{3}{4}$'), gold: '\\frac{3}{4}', expected: true },
    { pred: finalAnswer('$6$'), gold: '7', expected: false },
    { pred: finalAnswer('$2\\sqrt{2}$'), gold: '\\sqrt{2}', expected: false },
    { pred: finalAnswer('$\\frac{1}{3}$'), gold: '0.33', expected: false },
    { pred: finalAnswer('$-\\frac{2}{3}$'), gold: '\\frac{2}{3}', expected: false },
    { pred: finalAnswer('$[2,5)$'), gold: '[2,5)', expected: true },
    { pred: finalAnswer('$[2,5]$'), gold: '[2,5)', expected: false },
  ],
  get_unnormalized_answer: [
    // The closing formula is optional: Minerva appends it before matching.
    { pred: 'Final Answer: The final answer is $24$', gold: '24', expected: true },
    {
      pred: 'So it is 24.\nFinal Answer: The final answer is $25$. I hope it is correct.',
      gold: '24',
      expected: false,
    },
  ],
};
