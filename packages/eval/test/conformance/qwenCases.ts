import type { ConformanceCase } from './mathVerifyCases';

/**
 * Cases of Qwen2.5-Math's answer comparison (QwenLM/Qwen2.5-Math, evaluation/grader.py, Apache-2.0): the pairs
 * of its `_test_math_equal` with the verdict `math_equal` gives them, and one case per rule of `math_equal`
 * (numbers, percentages, choices, brackets, matrices, equations) and of the answer normalisation it runs first
 * (evaluation/parser.py strip_string). Qwen compares answers already extracted, so
 * these go through compareAnswers, with Qwen's tolerance (rel_tol 1e-4). `gold` is Qwen's reference and `pred`
 * its prediction.
 */
export const qwenCases: Record<string, readonly ConformanceCase[]> = {
  '_test_math_equal pairs': [
    { pred: '0.0833333333333333', gold: '\\frac{1}{12}', expected: true },
    { pred: '(1,4.5)', gold: '(1,\\frac{9}{2})', expected: true },
    { pred: '\\frac{x}{7}+\\frac{2}{7}', gold: '\\frac{x+2}{7}', expected: true },
    { pred: '\\sec^2(y)', gold: '\\tan^2(y)+1', expected: true },
    {
      pred: '\\begin{pmatrix}-\\frac{7}{4}&-2\\\\4&\\frac{1}{4}\\end{pmatrix}',
      gold: '(\\begin{pmatrix}-\\frac{7}{4}&-2\\\\4&\\frac{1}{4}\\\\\\end{pmatrix})',
      expected: true,
    },
    {
      pred: '\\begin{pmatrix}\\frac{1}{3x^{2/3}}&0&0\\\\0&1&0\\\\-\\sin(x)&0&0\\end{pmatrix}',
      gold: '(\\begin{pmatrix}\\frac{1}{3\\sqrt[3]{x}^2}&0&0\\\\0&1&0\\\\-\\sin(x)&0&0\\\\\\end{pmatrix})',
      expected: true,
    },
    {
      pred: '-\\frac{8x^2}{9(x^2-2)^{5/3}}+\\frac{2}{3(x^2-2)^{2/3}}',
      gold: '-\\frac{2(x^2+6)}{9(x^2-2)\\sqrt[3]{x^2-2}^2}',
      expected: true,
    },
    { pred: '-34x-45y+20z-100=0', gold: '34x+45y-20z+100=0', expected: true },
    { pred: '\\frac{100}{3}', gold: '33.3', expected: false },
    {
      pred: '\\begin{pmatrix}0.290243531202435\\\\0.196008371385084\\\\-0.186381278538813\\end{pmatrix}',
      gold: '(\\begin{pmatrix}0.29\\\\0.196\\\\-0.186\\\\\\end{pmatrix})',
      expected: true,
    },
    {
      pred: '\\frac{\\sqrt{\\sqrt{11}+\\sqrt{194}}}{2\\sqrt{33}+15}',
      gold: '\\frac{\\sqrt{\\sqrt{11}+\\sqrt{194}}}{15+2\\sqrt{33}}',
      expected: true,
    },
    { pred: '(+5)(b+2)', gold: '(a+5)(b+2)', expected: false },
    { pred: '\\frac{1+\\sqrt{5}}{2}', gold: '2', expected: false },
    { pred: '\\frac{34}{16}+\\frac{\\sqrt{1358}}{16}', gold: '4', expected: false },
    { pred: '1', gold: '1\\sqrt{19}', expected: false },
    { pred: '(0.6,2.6667]', gold: '(\\frac{3}{5},\\frac{8}{3}]', expected: true },
    { pred: 'x+1', gold: 'x+2n+1', expected: false },
  ],
  'math_equal rules': [
    // 1. the same string, ignoring case
    { pred: '\\text{Yes}', gold: '\\text{yes}', expected: true },
    // numbers: thousands commas dropped, rel_tol 1e-4
    { pred: '1,234', gold: '1234', expected: true },
    { pred: '3.14159', gold: '3.1416', expected: true },
    { pred: '3.14', gold: '3.1416', expected: false },
    // include_percentage: a percent sign divides by 100
    { pred: '50\\%', gold: '0.5', expected: true },
    { pred: '0.5', gold: '50\\%', expected: true },
    { pred: '50', gold: '0.5', expected: true },
    // choices: the reference is a letter, the prediction names it
    { pred: '(C)', gold: 'C', expected: true },
    { pred: '\\text{(B)}', gold: 'B', expected: true },
    { pred: '(D)', gold: 'C', expected: false },
    // brackets: elementwise comparison of tuples and intervals
    { pred: '(1, 2)', gold: '(1, 2.00)', expected: true },
    { pred: '[1, \\frac{3}{2}]', gold: '[1, 1.5]', expected: true },
    { pred: '(1, 2)', gold: '(2, 1)', expected: false },
    // matrices: entry by entry
    {
      pred: '\\begin{pmatrix}1&2\\\\3&4\\end{pmatrix}',
      gold: '\\begin{bmatrix}1&2\\\\3&4\\end{bmatrix}',
      expected: true,
    },
    {
      pred: '\\begin{pmatrix}1&2\\\\3&4\\end{pmatrix}',
      gold: '\\begin{pmatrix}1&2\\\\4&3\\end{pmatrix}',
      expected: false,
    },
    // equations: both sides moved to one side, up to sign; a short left side assigns
    { pred: 'y = 2x + 1', gold: '2x - y + 1 = 0', expected: true },
    { pred: 'x = 3', gold: '3', expected: true },
    { pred: '3', gold: 'k = 3', expected: true },
    // symbolic equality (sympy simplify)
    { pred: '\\frac{\\sqrt{2}}{2}', gold: '\\frac{1}{\\sqrt{2}}', expected: true },
    { pred: '(x+1)^2', gold: 'x^2+2x+1', expected: true },
    { pred: '(x+1)^2', gold: 'x^2+x+1', expected: false },
  ],
  'strip_string rules': [
    { pred: '\\left( 3, 4 \\right)', gold: '(3,4)', expected: true },
    { pred: '\\dfrac{3}{4}', gold: '\\tfrac{3}{4}', expected: true },
    {
      pred: '\\begin{bmatrix}1&0\\\\0&1\\end{bmatrix}',
      gold: '\\begin{pmatrix}1&0\\\\0&1\\end{pmatrix}',
      expected: true,
    },
    { pred: '12\\text{ miles}', gold: '12', expected: true },
    { pred: '30^{\\circ}', gold: '30', expected: true },
    { pred: '\\$42', gold: '42', expected: true },
    { pred: 'five', gold: '5', expected: true },
    { pred: '\\text{Monday}', gold: 'Monday', expected: true },
    { pred: '10\\%', gold: '10', expected: true },
    { pred: '.5', gold: '0.5', expected: true },
    { pred: '4.000', gold: '4', expected: true },
    { pred: 'k = 7', gold: '7', expected: true },
    { pred: '\\sqrt3', gold: '\\sqrt{3}', expected: true },
    { pred: '\\frac12', gold: '\\frac{1}{2}', expected: true },
    { pred: '3/4', gold: '\\frac{3}{4}', expected: true },
    { pred: '12,\\!000', gold: '12000', expected: true },
    { pred: '(-\\infty,\\infty)', gold: '\\mathbb{R}', expected: true },
    { pred: '\\frac12', gold: '\\frac{1}{3}', expected: false },
    { pred: '12\\text{ miles}', gold: '13', expected: false },
  ],
};
