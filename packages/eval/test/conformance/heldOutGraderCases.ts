import type { HeldOutCase } from './heldOutMathVerifyCases';

/**
 * Held-out suite B of issue 37: the cases of other public graders' tests that no earlier suite of the project
 * ported (categoryCases.ts took those of the issue's categories), so the grader was never tuned on them. Each case
 * is a (prediction, gold, verdict) fact of the source; only the data is taken. Answers already extracted unless
 * `level` is 'response'. Sources:
 *
 * - mario: MARIO-Math-Reasoning/MARIO_EVAL math_evaluation/tests/test_is_equiv.py
 *   @ 13584f20b71ffc6e9873e86481054849ed015065 (is_equiv(ground_truth, given): gold first; EPSILON 1e-3)
 * - hendrycks: hendrycks/math modeling/math_equivalence_test.py @ 5f3bf91d13367550bed100240554fd11c25abe48
 *   (is_equiv(str1, str2), read as gold, prediction)
 * - nemo: NVIDIA/NeMo-Skills tests/test_math_equal.py @ 0b012df8a09cd4730d31b16e90a0d8f13d145fb8 (both directions)
 * - inspect: UKGovernmentBEIS/inspect_ai tests/scorer/math_cases.json @ 05d0479eec1439fc10a116a7901b84523d1f1eea
 *   and tests/scorer/test_math.py @ 0ad0e3fc7c48152b533b439999fbd563d9170040 (whole outputs: level 'response')
 * - verl: volcengine/verl tests/utils/reward_score/test_numeric_canonicalization_on_cpu.py
 *   @ d69068d2a32b985e759049da6f801a039b94b31b (is_equiv of the boxed gold's content and the prediction)
 * - lighteval: huggingface/lighteval tests/unit/metrics/test_cases/gpqa_instruct_metric.json
 *   @ 8955542d5b31d52ab2318612064a7e1fd053c0c2 (the gold option letter against the whole response; the model
 *   responses are shortened to their reasoning's last sentence and answer lines, which is what extraction reads)
 */
const mario = 1e-3;

/** NeMo-Skills asserts every pair in both directions. */
const both = (a: string, b: string, expected: boolean): HeldOutCase[] => [
  { source: 'nemo', gold: a, pred: b, expected },
  { source: 'nemo', gold: b, pred: a, expected },
];

const inspect = (pred: string, gold: string, expected: boolean): HeldOutCase => ({
  source: 'inspect',
  level: 'response',
  gold,
  pred,
  expected,
});

const gpqa = (pred: string, gold: string, expected: boolean): HeldOutCase => ({
  source: 'lighteval',
  level: 'response',
  gold,
  pred,
  expected,
});

export const heldOutGraderCases: Record<string, readonly HeldOutCase[]> = {
  'decimal commas, thin spaces, numbers with units': [
    { source: 'mario', gold: '10 \\text{cm}', pred: '10', expected: true },
    { source: 'mario', gold: '10\\text{ cm}^2', pred: '10', expected: true },
    { source: 'hendrycks', gold: '0.1', pred: '.1', expected: true },
    ...both('5', '5.0', true),
    ...both('185\\', '185\\', true),
    inspect('1,000,000', '1000000', true),
    inspect('\\boxed{1.5 \\times 10^3}', '1500', true),
    inspect('0.5', '1/2', true),
    inspect('\\boxed{\\frac{1}{2}}', '0.5', true),
  ],
  'numbers: leading zeros and signs': [
    { source: 'verl', gold: '033', pred: '33', expected: true },
    { source: 'verl', gold: '+033', pred: '33', expected: true },
    { source: 'verl', gold: '-0', pred: '0', expected: true },
    { source: 'verl', gold: '000', pred: '0', expected: true },
  ],
  percent: [
    { source: 'mario', gold: '10\\%', pred: '0.1', expected: true },
    ...both('10%', '10', true),
    ...both('10\\%', '10', true),
    inspect('\\boxed{33.5\\%}', '0.335', true),
    inspect('33.5\\%', '0.335', true),
    inspect('33.5 percentage', '0.335', true),
    inspect('0.335', '33.5\\%', true),
  ],
  'mixed numbers and bases': [
    { source: 'mario', gold: '4210_{7}', pred: '4210_7', expected: true },
    { source: 'mario', gold: '1\\frac12', pred: '1.5', expected: true },
    { source: 'mario', gold: '2\\frac58', pred: '2.625', expected: true },
    ...both('918\\frac{1}{2}', '918.5', true),
  ],
  'answer phrases and assignment forms': [
    { source: 'mario', gold: 'f(x) = 2x + 3', pred: '2x + 3', expected: true },
    { source: 'mario', gold: 'f(x) = 2x + 3', pred: 'y = 2x + 3', expected: true },
    ...both('y = x^2+2x+1', '2x+ 1+x^2', true),
    inspect('2', 'x=2', true),
    inspect('x=2', '2', true),
    inspect('x=2', '2=x', true),
    inspect('2', 'y = 2', true),
    inspect('2', 'z = 2', true),
    inspect('The answer is \\boxed{5}', '42', false),
    ...both('\\frac{\\sqrt{3}}{3}', '\\frac{\\sqrt{3}}{3} \\approx 0.577', true),
  ],
  'matrices and complex numbers': [
    {
      source: 'mario',
      gold: '\\\\begin{matrix} x \\\\\\\\ \\\\sqrt{3} + 2I  \\\\\\\\ \\\\frac12 \\\\end{matrix}',
      pred: '\\begin{matrix} x \\\\ \\sqrt{3} + 2I \\\\ 0.5 \\end{matrix}',
      expected: true,
    },
    { source: 'mario', gold: 'x + \\sqrt2I', pred: 'x + 1.414I', expected: true, relTol: mario },
    { source: 'mario', gold: '1+2i', pred: 'i(2-i)', expected: true },
    { source: 'hendrycks', gold: '\\frac34i', pred: '\\frac{3}{4}i', expected: true },
  ],
  'expressions, fractions, equations': [
    { source: 'mario', gold: '40\\pi', pred: '125.663', expected: true, relTol: mario },
    {
      source: 'mario',
      gold: '\\tfrac23 +\\frac1{72}',
      pred: '\\\\dfrac{2}{3} +\\frac{1}{72}',
      expected: true,
    },
    { source: 'mario', gold: '$\\frac{\\sqrt{17}}{17}$', pred: '$\\frac{\\sqrt{17}}{17}$', expected: true },
    { source: 'mario', gold: '$\\frac{4\\sqrt{5}}{5}$', pred: '$\\frac{4\\sqrt{5}}{5}$', expected: true },
    { source: 'mario', gold: '\\frac{\\sqrt{3}}{2}', pred: '0.8660254037844386', expected: true },
    { source: 'mario', gold: '\\left(x-2\\right)\\left(x+2\\right)', pred: '(x-2)(x+2)', expected: true },
    { source: 'mario', gold: '10\\sqrt{3} + \\sqrt4', pred: '10\\sqrt3 + \\sqrt{4}', expected: true },
    { source: 'mario', gold: '$\\sqrt{5}$', pred: '$\\\\sqrt{5}$', expected: true },
    { source: 'mario', gold: '5x - 7y + 11z + 4 = 0', pred: 'x + y - z + 2 = 0', expected: false },
    { source: 'mario', gold: '\\sin(x)=\\frac{42}{59}', pred: '\\cos(x)=\\frac{42}{59}', expected: false },
    {
      source: 'mario',
      gold: '$\\frac{v_{0}}{r_{0}} \\frac{1}{\\left(1+r / r_{0}\\right)^{3 / 2}}$',
      pred: '$\\frac{v_0 \\cdot \\left(\\frac{r_0}{r + r_0}\\right)^{0.5}}{(r + r_0)}$',
      expected: true,
    },
    { source: 'mario', gold: '11z^{7}(5+11z^{7})', pred: '11z^7(11z^7+5)', expected: true },
    { source: 'mario', gold: '$\\frac{8-7x}{6}$', pred: '$4/3-7x/6$', expected: true },
    { source: 'mario', gold: '(2x+3)(2x -1)(2x+1)', pred: '(2x - 1)(2x + 1)(2x + 3)', expected: true },
    { source: 'mario', gold: '2^6 * 3^5 * 5^4', pred: '2^6 3^5 5^4', expected: true },
    { source: 'mario', gold: '\\sec x', pred: '\\frac1{\\cos x}', expected: true },
    { source: 'mario', gold: '\\sin(90^{\\circ}-x)', pred: '\\cos(x)', expected: true },
    { source: 'mario', gold: '2.314814814815 \\times 10^{-3}', pred: '\\frac{1}{432}', expected: true },
    {
      source: 'hendrycks',
      gold: '\\tfrac{1}{2} + \\frac1{72}',
      pred: '\\\\frac{1}{2} + 2/3',
      expected: false,
    },
    { source: 'hendrycks', gold: '\\tfrac83', pred: '\\frac{8}{3}', expected: true },
    { source: 'hendrycks', gold: '1/2', pred: '\\frac{1}{2}', expected: true },
    ...both('1/2', '0.5', true),
    ...both('\\frac {1}{2}', '0.5', true),
    ...both('x^2+2x+1', 'x^2 + 2*x + 1', true),
    ...both('x^2+2x+1', 'x^2 + 2*x - (-1)', true),
    ...both('2.5', '\\frac{5}{2}', true),
    ...both('\\frac{1}{3}', '\\dfrac{1}{3}', true),
    ...both('(r+5)(r+5)', '(r+5)^2', true),
    ...both('x^2+2x+1', 'x^3+2x+1', false),
    inspect('\\boxed{\\sqrt2}', '$\\sqrt{2}$', true),
    inspect('\\boxed{x^2 - x^2}', '0', true),
    inspect('\\boxed{\\binom{2026}{1013}}', '\\binom{2026}{1013}', true),
    inspect('\\boxed{2024^{4046}}', '2024^{4046}', true),
    inspect('\\boxed{1/2004!}', '1/2004!', true),
    inspect('\\boxed{2^{2025}}', '3^{2025}', false),
  ],
  'multiple-choice letters': [
    gpqa('This is a well-known fact in geography.\n\nAnswer: B', 'B', true),
    gpqa('So Mercury is the closest planet to the Sun.\n\nAnswer: C', 'C', true),
    gpqa('2 + 2 = 4, so the answer is B. This is basic arithmetic.\n\nAnswer: B', 'B', true),
    gpqa(
      'The sky appears blue due to Rayleigh scattering of sunlight. The answer is C.\n\nAnswer: A',
      'C',
      false,
    ),
    gpqa("It's much larger than the Atlantic, Indian, and Arctic oceans.", 'C', false),
    gpqa('So the answer is C (Red). Red is a primary color.\n\nAnswer: C', 'C', true),
    gpqa('The chemical symbol for gold is Au. So the answer is (B) Au.\n\nAnswer: B', 'B', true),
    gpqa('A triangle is a polygon with three sides. So the answer is B.\n\nAnswer: B.', 'B', true),
    gpqa('The opposite of hot is cold. So the answer is B.\n\nAnswer: B, which is cold.', 'B', true),
    gpqa('Jupiter is the largest planet in our solar system. So the answer is c.\n\nAnswer: c', 'C', false),
    gpqa('The square root of 16 is 4, because 4 × 4 = 16. Therefore, the answer is B.', 'B', true),
    gpqa('The capital of Japan is Tokyo. So the answer is "C".\n\nAnswer: "C"', 'C', false),
    gpqa(
      'Dogs are mammals, while fish, birds, and reptiles are not. So the answer is C.\n\nAnswer: C',
      'C',
      true,
    ),
    gpqa('Therefore, the answer is B.\n\nAnswer: B', 'B', true),
    gpqa('So the answer is definitely C.\n\nAnswer: C', 'C', true),
    gpqa('Let me solve this step by step:\n1. 15 × 3 = 45\n2. This matches option C\n\nAnswer: C', 'C', true),
    gpqa('- Banana is a fruit ✓\n- Orange is a fruit ✓\n\nSo the answer is B.\n\nAnswer: B', 'B', true),
    gpqa("Therefore, 'joyful' is a synonym for 'happy', so the answer is B.\n\nAnswer: B", 'B', true),
    gpqa('1/5 = 0.2\n\n1/2 is the largest, so the answer is A.\n\nAnswer: A', 'A', true),
    gpqa('Japan surrendered in September 1945. So the answer is C.\n\nAnswer: C', 'C', true),
    gpqa('A = π(3)² = π(9) = 9π\n\nSo the answer is B.\n\nAnswer: B', 'B', true),
  ],
};
