// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the cases are LaTeX answers, where ${...} is math, not a template.
import type { ConformanceCase } from './mathVerifyCases';

/**
 * A held-out suite for issue 37, organised by the categories of the grader's remaining misses. Each case is a
 * (prediction, gold, verdict) fact taken from a public grader's own tests; only the data is taken. `level`
 * 'response' grades the prediction as a whole model response (extraction first), as the source scores it;
 * otherwise both sides are answers already extracted. `relTol` is the source's own numeric tolerance where it
 * decides the verdict. Sources (repository, path, commit):
 *
 * - hendrycks: hendrycks/math modeling/math_equivalence_test.py @ 985bdc1696e88e8643f081a0ff4719da39f2ae2a
 * - mario: MARIO-Math-Reasoning/MARIO_EVAL math_evaluation/tests/test_is_equiv.py
 *   @ 13584f20b71ffc6e9873e86481054849ed015065 (is_equiv(ground_truth, given): gold first; EPSILON 1e-3)
 * - nemo: NVIDIA/NeMo-Skills tests/test_math_equal.py @ 0b012df8a09cd4730d31b16e90a0d8f13d145fb8 (every pair is
 *   asserted in both directions, so both are listed)
 * - inspect: UKGovernmentBEIS/inspect_ai tests/scorer/test_math.py and tests/scorer/math_cases.json
 *   @ 499e6152e7b8fc8cbd8ac5283536572aa6e4ab17 (the scorer extracts from the whole output: level 'response')
 * - qwen: QwenLM/Qwen2.5-Math evaluation/parser.py and evaluation/grader.py
 *   @ a45202bd16f1ec06f433442dc1152d0074773465
 * - math-verify: huggingface/Math-Verify tests/test_all.py and tests/test_string_extraction.py
 *   @ 5d148cfaaf99214c2e4ffb4bc497ab042c592a7a
 */
export interface CategoryCase extends ConformanceCase {
  readonly source: 'hendrycks' | 'mario' | 'nemo' | 'inspect' | 'qwen' | 'math-verify';
}

const mario = 1e-3;

export const categoryCases: Record<string, readonly CategoryCase[]> = {
  'ordered answers vs sets': [
    // hendrycks: a list written in no order of value keeps its order.
    { source: 'hendrycks', gold: '10, 4, -2', pred: '4, 10, -2', expected: false },
    { source: 'hendrycks', gold: '4, 10, -2', pred: '10, 4, -2', expected: false },
    { source: 'hendrycks', gold: '10, 4, 2', pred: '4, 12, 2', expected: false },
    { source: 'hendrycks', gold: '0.1, 4, 2', pred: '4, .1, 2', expected: false },
    { source: 'hendrycks', gold: '4, .1, 2', pred: '0.1, 4, 2', expected: false },
    // mario: a list written in order of value is a set of solutions; brackets and parentheses are ordered.
    { source: 'mario', gold: '1, 2, 3', pred: '1, 3, 2', expected: true },
    { source: 'mario', gold: '7, -2, \\text{ and } -5', pred: '-5,-2,7', expected: true },
    { source: 'mario', gold: '.1, 4.0', pred: '0.1, 4', expected: true },
    { source: 'mario', gold: '[1, 2, 3]', pred: '(1, 3, 2)', expected: false },
    { source: 'mario', gold: '[x, x + 1]', pred: '[x, 1 + x]', expected: true },
    { source: 'mario', gold: '[x, x + 1]', pred: '[x + 1, x]', expected: false },
    { source: 'mario', gold: '\\{x, x - 1\\}', pred: '\\{x - 1, x\\}', expected: true },
    { source: 'mario', gold: 'x = 1, y = 2, z = 3', pred: '1, 2, 3', expected: true },
    {
      source: 'mario',
      gold: '\\frac13, \\sqrt3, \\pi',
      pred: '1/3, 1.732, 3.1416',
      expected: true,
      relTol: mario,
    },
    // nemo: a list is not one of its items, in either direction.
    { source: 'nemo', gold: '\\sqrt{67},-\\sqrt{85}', pred: '\\sqrt{67}', expected: false },
    { source: 'nemo', gold: '\\sqrt{67}', pred: '\\sqrt{67},-\\sqrt{85}', expected: false },
    // inspect: sets, tuples, and tuples against a number.
    { source: 'inspect', level: 'response', gold: '$\\{3, 2, 1\\}$', pred: '$\\{1,2,3\\}$', expected: true },
    {
      source: 'inspect',
      level: 'response',
      gold: '$\\left(1, 2\\right)$',
      pred: '$\\left(1, 2\\right)$',
      expected: true,
    },
    {
      source: 'inspect',
      level: 'response',
      gold: '\\left(3,\\frac{\\pi}{2}\\right)',
      pred: '\\left( 3, \\frac{\\pi}{2} \\right)',
      expected: true,
    },
    {
      source: 'inspect',
      level: 'response',
      gold: '2,3,\\frac{3+i\\sqrt{3}}{2},\\frac{3-i\\sqrt{3}}{2}',
      pred: '2,3,\\frac{3+i\\sqrt{3}}{2},\\frac{3-i\\sqrt{3}}{2}',
      expected: true,
    },
    { source: 'inspect', level: 'response', gold: '2', pred: '[]', expected: false },
    { source: 'inspect', level: 'response', gold: '2', pred: '[0]', expected: false },
    { source: 'inspect', level: 'response', gold: '2', pred: '(0,)', expected: false },
    { source: 'inspect', level: 'response', gold: '2', pred: '(0, 1)', expected: false },
    { source: 'inspect', level: 'response', gold: '(0, 1)', pred: '(0, 1)', expected: true },
    { source: 'inspect', level: 'response', gold: '(1,2)', pred: '(1,2)', expected: true },
    { source: 'inspect', level: 'response', gold: '(1, 2)', pred: '(1, 2)', expected: true },
    { source: 'inspect', level: 'response', gold: '{1,2,3}', pred: '{1,2,3}', expected: true },
    { source: 'inspect', level: 'response', gold: '[1,2]', pred: '[1,2]', expected: true },
    { source: 'inspect', level: 'response', gold: '12', pred: '(1,2)', expected: false },
    { source: 'inspect', level: 'response', gold: '12', pred: '(1, 2)', expected: false },
    { source: 'inspect', level: 'response', gold: '12', pred: '{1,2,3}', expected: false },
    { source: 'inspect', level: 'response', gold: '12', pred: '[1,2]', expected: false },
    {
      source: 'inspect',
      level: 'response',
      gold: '\\{10,42\\}',
      pred: '\\boxed{10} and then \\boxed{42}',
      expected: false,
    },
    // qwen: brackets and parentheses compare item by item, in order.
    { source: 'qwen', gold: '(1,\\frac{9}{2})', pred: '(1,4.5)', expected: true },
    { source: 'qwen', gold: '(\\frac{9}{2},1)', pred: '(1,4.5)', expected: false },
  ],
  'intervals vs inequalities': [
    // mario
    { source: 'mario', gold: 'x \\in [0.5, \\infty)', pred: '[1/2, \\infty)', expected: true },
    { source: 'mario', gold: '[1,+\\infty)', pred: '[2^{\\frac{1}{2^{1000}}}, \\infty)', expected: true },
    { source: 'mario', gold: '[-3,2]', pred: '(-3,2)', expected: false },
    { source: 'mario', gold: '[1, 2)', pred: '[x, y)', expected: false },
    // inspect
    { source: 'inspect', level: 'response', gold: '2>x', pred: 'x<2', expected: true },
    { source: 'inspect', level: 'response', gold: '2=x', pred: 'x=2', expected: true },
    {
      source: 'inspect',
      level: 'response',
      gold: '(-\\infty,-8)\\cup (8,\\infty)',
      pred: '(-\\infty,-8)\\cup (8,\\infty)',
      expected: true,
    },
    // math-verify test_all (test_set_rel_assymetry, test_math_extraction_additional_cases): unions of intervals
    // against an inequality in an absolute value.
    {
      source: 'math-verify',
      level: 'response',
      gold: '$1\\leq|z|\\leq \\frac{3}{2}$',
      pred: '$z \\in \\left[-\\frac{3}{2}, -1\\right] \\cup \\left[1, \\frac{3}{2}\\right]$',
      expected: true,
    },
    {
      source: 'math-verify',
      level: 'response',
      gold: '$x \\in [-2,7]$',
      pred: '$-2 \\le x \\le 7$',
      expected: true,
      allowSetRelation: true,
    },
  ],
  'decimal commas, thin spaces, numbers in prose': [
    // math-verify test_all/test_number_extraction
    { source: 'math-verify', level: 'response', gold: '1000.99', pred: '1000,99', expected: true },
    { source: 'math-verify', level: 'response', gold: '1,22', pred: '1.22', expected: true },
    { source: 'math-verify', level: 'response', gold: '2.74', pred: 'Soucis : 2,74 $ a..', expected: true },
    { source: 'math-verify', level: 'response', gold: '0,111', pred: '0.111', expected: true },
    {
      source: 'math-verify',
      level: 'response',
      gold: '1000.99',
      pred: 'so the number is 10 which is 1,000.99m²',
      expected: true,
    },
    {
      source: 'math-verify',
      level: 'response',
      gold: '1000.99',
      pred: 'the number is not 10 which is 1,000.99€',
      expected: true,
    },
    { source: 'math-verify', level: 'response', gold: '2', pred: 'AZYUK2A', expected: false },
    // mario
    { source: 'mario', gold: '11,\\! 111,\\! 111,\\! 100', pred: '11111111100', expected: true },
    { source: 'mario', gold: '1 1/2', pred: '1.5', expected: true },
    { source: 'mario', gold: '10', pred: '\\$10', expected: true },
    { source: 'mario', gold: '10\\text{ units}', pred: '10', expected: true },
    { source: 'mario', gold: '10 square units', pred: '10', expected: true },
    { source: 'mario', gold: '10\\text{ cm}^{2}', pred: '10', expected: true },
    { source: 'mario', gold: '10weeks', pred: '10', expected: true },
    { source: 'mario', gold: '10 weeks', pred: '10', expected: true },
    { source: 'mario', gold: '10 cm^2', pred: '10', expected: true },
    { source: 'mario', gold: '10cm', pred: '10', expected: false },
    { source: 'mario', gold: '10m', pred: '10', expected: false },
    // hendrycks
    { source: 'hendrycks', gold: '10\\text{ units}', pred: '10 ', expected: true },
    { source: 'hendrycks', gold: '10\\text{ units}', pred: '100 ', expected: false },
    {
      source: 'hendrycks',
      gold: '\\tfrac{1}{2} +\\! \\frac1{72}',
      pred: '\\\\dfrac{1}{2} +\\frac{1}{72}',
      expected: true,
    },
    // nemo (both directions)
    { source: 'nemo', gold: '17', pred: '17\\text{ any text}', expected: true },
    { source: 'nemo', gold: '17\\text{ any text}', pred: '17', expected: true },
    { source: 'nemo', gold: '10', pred: '\\$10', expected: true },
    { source: 'nemo', gold: '185', pred: '185\\', expected: true },
    { source: 'nemo', gold: '185\\', pred: '185', expected: true },
    { source: 'nemo', gold: '0.185', pred: '.185', expected: true },
    { source: 'nemo', gold: '5.001', pred: '5', expected: false },
    { source: 'nemo', gold: '5', pred: '5.001', expected: false },
    // inspect: grouped thousands, thin spaces, currency, exact large integers.
    { source: 'inspect', level: 'response', gold: '1234', pred: '1,234', expected: true },
    { source: 'inspect', level: 'response', gold: '12345678', pred: '12,345,678', expected: true },
    { source: 'inspect', level: 'response', gold: '1234.5', pred: '1,234.5', expected: true },
    { source: 'inspect', level: 'response', gold: '-8192', pred: '-8,192', expected: true },
    { source: 'inspect', level: 'response', gold: '1234', pred: '1\\,234', expected: true },
    { source: 'inspect', level: 'response', gold: '12345678', pred: '12\\,345\\,678', expected: true },
    { source: 'inspect', level: 'response', gold: '1234.5', pred: '1\\,234.5', expected: true },
    { source: 'inspect', level: 'response', gold: '15000', pred: '\\boxed{\\$15,\\!000}', expected: true },
    { source: 'inspect', level: 'response', gold: '10', pred: '\\boxed{10\\text{ cm}}', expected: true },
    { source: 'inspect', level: 'response', gold: '1,23', pred: '1,23', expected: true },
    { source: 'inspect', level: 'response', gold: '1,2345', pred: '1,2345', expected: true },
    { source: 'inspect', level: 'response', gold: '12', pred: '1,23', expected: false },
    { source: 'inspect', level: 'response', gold: '12', pred: '1,2345', expected: false },
    { source: 'inspect', level: 'response', gold: '100000000000', pred: '99999999999', expected: false },
    {
      source: 'inspect',
      level: 'response',
      gold: '100000000001000000000',
      pred: '100000000000000000000',
      expected: false,
    },
    { source: 'inspect', level: 'response', gold: '12345678902', pred: '12345678901', expected: false },
    { source: 'inspect', level: 'response', gold: '0.335', pred: '33.5%', expected: true },
    { source: 'inspect', level: 'response', gold: '0.335', pred: '33.5 percent', expected: true },
    { source: 'inspect', level: 'response', gold: '0.335', pred: '33.5 pct', expected: true },
    { source: 'inspect', level: 'response', gold: '0.005', pred: '\\frac{1}{2}\\%', expected: true },
    {
      source: 'inspect',
      level: 'response',
      gold: '0.005',
      pred: '\\frac{1}{2}\\text{ percent}',
      expected: true,
    },
    { source: 'inspect', level: 'response', gold: '\\sqrt{2}', pred: '1.4142135623730951', expected: true },
  ],
  'prose answers and multiple-choice letters': [
    // inspect (IMO-AnswerBench rows of math_cases.json, and test_text_answer_is_not_overridden_by_subexpression)
    { source: 'inspect', level: 'response', gold: 'odd $n$', pred: 'odd $n$', expected: true },
    {
      source: 'inspect',
      level: 'response',
      gold: '$g(x)=\\frac{1}{3} ((2x)^a +(2x)^{-a})$ for some $a>0$',
      pred: '$g(x)=\\frac{1}{3} ((2x)^a +(2x)^{-a})$ for some $a>0$',
      expected: true,
    },
    {
      source: 'inspect',
      level: 'response',
      gold: '$\\lfloor\\varphi n\\rfloor$, where $\\varphi = \\frac{\\sqrt{5}+1}{2}',
      pred: '$\\lfloor\\varphi n\\rfloor$, where $\\varphi = \\frac{\\sqrt{5}+1}{2}',
      expected: true,
    },
    // nemo: letters and words (both directions).
    { source: 'nemo', gold: 'E', pred: '\\mathrm{E}', expected: true },
    { source: 'nemo', gold: '\\mathrm{E}', pred: 'E', expected: true },
    { source: 'nemo', gold: 'A', pred: '\\textbf{A}', expected: true },
    { source: 'nemo', gold: '\\textbf{A}', pred: 'A', expected: true },
    { source: 'nemo', gold: 'odd', pred: '\\text{oddd}', expected: false },
    { source: 'nemo', gold: '\\text{oddd}', pred: 'odd', expected: false },
    { source: 'nemo', gold: 'E', pred: '\\mathrm{E}*2', expected: false },
    { source: 'nemo', gold: '\\mathrm{E}*2', pred: 'E', expected: false },
    { source: 'nemo', gold: "f'", pred: "f'", expected: true },
    // math-verify tests/test_string_extraction.py: the letter a response commits to.
    { source: 'math-verify', level: 'response', gold: 'A', pred: 'The answer is A.', expected: true },
    { source: 'math-verify', level: 'response', gold: 'B', pred: 'Final answer is B', expected: true },
    {
      source: 'math-verify',
      level: 'response',
      gold: 'A',
      pred: 'A. Because B is not valid',
      expected: true,
    },
    {
      source: 'math-verify',
      level: 'response',
      gold: 'B',
      pred: 'A. Because B is not valid',
      expected: false,
    },
    { source: 'math-verify', level: 'response', gold: 'B', pred: 'The answer is A.', expected: false },
    // qwen: choice_answer_clean reads the option letter before the option's text.
    { source: 'qwen', gold: 'D', pred: '\\mathrm{(D)}\\ 1,008,016', expected: true },
    { source: 'qwen', gold: 'C', pred: 'C. x = 42', level: 'response', expected: true },
    { source: 'qwen', gold: 'D', pred: 'C. x = 42', level: 'response', expected: false },
  ],
  'time of day': [
    // mario
    { source: 'mario', gold: '20:34', pred: '20:34:00', expected: true },
    { source: 'mario', gold: '20:34:00', pred: '20:34', expected: true },
    { source: 'mario', gold: '20:34', pred: '08:34 \\text{P.M.}', expected: true },
    { source: 'mario', gold: '08:34 \\text{P.M.}', pred: '20:34', expected: true },
  ],
  'answer phrases, bare completions, malformed boxes': [
    // inspect: test_prose_wrapped_numeric_answers_are_extracted and friends, and math_cases.json.
    {
      source: 'inspect',
      level: 'response',
      gold: '42',
      pred: 'The answer is 42 because geometry proves it',
      expected: true,
    },
    {
      source: 'inspect',
      level: 'response',
      gold: '42',
      pred: '42 because geometry proves it',
      expected: true,
    },
    { source: 'inspect', level: 'response', gold: '42', pred: 'First compute 6*7.\n42', expected: true },
    { source: 'inspect', level: 'response', gold: '42', pred: 'Final answer: 42', expected: true },
    { source: 'inspect', level: 'response', gold: '42', pred: 'The perimeter is 7', expected: false },
    { source: 'inspect', level: 'response', gold: '42', pred: 'The answer is \\boxed{42}', expected: true },
    { source: 'inspect', level: 'response', gold: '42', pred: 'The answer is 42', expected: true },
    { source: 'inspect', level: 'response', gold: '42', pred: 'The answer is $$42$$', expected: true },
    { source: 'inspect', level: 'response', gold: '43', pred: '\\boxed{42}', expected: false },
    {
      source: 'inspect',
      level: 'response',
      gold: '42',
      pred: '\\boxed{10} and then \\boxed{42}',
      expected: true,
    },
    {
      source: 'inspect',
      level: 'response',
      gold: '42',
      pred: `${'\\boxed{9} '.repeat(400)}\\boxed{42}`,
      expected: true,
    },
    {
      source: 'inspect',
      level: 'response',
      gold: '42',
      pred: `${'reasoning '.repeat(50_000)}\\boxed{42}`,
      expected: true,
    },
    {
      source: 'inspect',
      level: 'response',
      gold: '8\\sqrt{6}',
      pred: '\\beginboxed{8\\sqrt{6}}',
      expected: true,
    },
    {
      source: 'inspect',
      level: 'response',
      gold: '74^\\circ',
      pred: '\\boxed{\\;\\angle APC = 74^\\circ\\;}',
      expected: true,
    },
    { source: 'inspect', level: 'response', gold: '74^\\circ', pred: '\\boxed{74°}', expected: true },
    // qwen: extract_answer splits on "boxed" whether or not a backslash precedes it.
    { source: 'qwen', level: 'response', gold: '19', pred: 'So the total is boxed {19}', expected: true },
    { source: 'qwen', level: 'response', gold: '19', pred: 'So the total is boxed{19}.', expected: true },
    {
      source: 'qwen',
      level: 'response',
      gold: '\\frac{1}{6}',
      pred: 'So the answer is \\boxed{1/6}.',
      expected: true,
    },
    {
      source: 'qwen',
      level: 'response',
      gold: '20',
      pred: 'So the answer is \\boxed{1/6}.',
      expected: false,
    },
  ],
  'text that is code': [
    // inspect: test_security_payload_is_rejected_without_fallback scores `${payload} or 0` against "0".
    {
      source: 'inspect',
      level: 'response',
      gold: '0',
      pred: "__import__('os').system('touch marker') or 0",
      expected: false,
    },
    {
      source: 'inspect',
      level: 'response',
      gold: '0',
      pred: "open('marker', 'w').write('x') or 0",
      expected: false,
    },
    {
      source: 'inspect',
      level: 'response',
      gold: '0',
      pred: "getattr(__import__('pathlib').Path('marker'), 'touch')() or 0",
      expected: false,
    },
    {
      source: 'inspect',
      level: 'response',
      gold: '0',
      pred: '(1).__class__.__mro__[1].__subclasses__() or 0',
      expected: false,
    },
    {
      source: 'inspect',
      level: 'response',
      gold: '0',
      pred: "(lambda: open('marker', 'w'))() or 0",
      expected: false,
    },
    {
      source: 'inspect',
      level: 'response',
      gold: '0',
      pred: "[open('marker', 'w') for _ in [0]] or 0",
      expected: false,
    },
    {
      source: 'inspect',
      level: 'response',
      gold: '0',
      pred: "globals()['__builtins__']['open']('marker', 'w') or 0",
      expected: false,
    },
    {
      source: 'inspect',
      level: 'response',
      gold: '0',
      pred: '().__class__.__base__.__subclasses__()',
      expected: false,
    },
    // inspect: python-style answers that are mathematics.
    { source: 'inspect', level: 'response', gold: '\\sqrt{3} - 1', pred: '-1 + sqrt(3)', expected: true },
    {
      source: 'inspect',
      level: 'response',
      gold: '\\frac{3\\sqrt{5}}{7}',
      pred: '(3*sqrt(5))/7',
      expected: true,
    },
    {
      source: 'inspect',
      level: 'response',
      gold: '2**(1/4)',
      pred: '\\boxed{\\sqrt{\\sqrt{2}}}',
      expected: true,
    },
  ],
  'matrices and vectors': [
    // mario
    {
      source: 'mario',
      gold: '\\begin{pmatrix} 1 & 1/2 \\\\ 1/3 & 4 \\end{pmatrix}',
      pred: '\\begin{pmatrix} 1 & 0.5 \\\\ 1/3 & 4 \\end{pmatrix}',
      expected: true,
    },
    {
      source: 'mario',
      gold: '\\begin{matrix} x \\\\ \\sqrt{3} + 2x  \\\\ \\frac12 \\end{matrix}',
      pred: '\\begin{matrix} x \\\\ \\sqrt{3} + 2x \\\\ 0.5 \\end{matrix}',
      expected: true,
    },
    {
      source: 'mario',
      gold: '\\begin{matrix} \\frac12 \\\\ 1 \\end{matrix}',
      pred: '[0.5, 1]',
      expected: true,
    },
    {
      source: 'mario',
      gold: '\\begin{cases} a+b=\\frac12 \\\\ a-b=\\sqrt3 \\end{cases}',
      pred: '\\begin{cases} a+b=0.5\\\\ a-b=1.732\\end{cases}',
      expected: true,
      relTol: mario,
    },
    // nemo (both directions)
    {
      source: 'nemo',
      gold: '\\begin{pmatrix}0&0&0\\\\0&1&0\\\\0&0&1\\end{pmatrix}',
      pred: '\\begin{bmatrix} 0 & 0 & 0 \\\\ 0 & 1 & 0 \\\\ 0 & 0 & 1 \\end{bmatrix}',
      expected: true,
    },
    {
      source: 'nemo',
      gold: '\\begin{bmatrix} 0 & 0 & 0 \\\\ 0 & 1 & 0 \\\\ 0 & 0 & 1 \\end{bmatrix}',
      pred: '\\begin{pmatrix}0&0&0\\\\0&1&0\\\\0&0&1\\end{pmatrix}',
      expected: true,
    },
    // qwen: _test_math_equal's vector with entries rounded to three decimals.
    {
      source: 'qwen',
      gold: '(\\begin{pmatrix}0.29\\\\0.196\\\\-0.186\\\\\\end{pmatrix})',
      pred: '\\begin{pmatrix}0.290243531202435\\\\0.196008371385084\\\\-0.186381278538813\\end{pmatrix}',
      expected: true,
    },
    // inspect
    {
      source: 'inspect',
      level: 'response',
      gold: '\\begin{pmatrix} 1/\\sqrt{2} & 1/\\sqrt{2} \\\\ -1/\\sqrt{2} & 1/\\sqrt{2} \\end{pmatrix}',
      pred: '\\begin{pmatrix} 1/\\sqrt{2} & 1/\\sqrt{2} \\\\ -1/\\sqrt{2} & 1/\\sqrt{2} \\end{pmatrix}',
      expected: true,
    },
  ],
};
