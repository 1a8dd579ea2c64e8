import type { Case } from './cases';

/**
 * A second batch of cases, written after the grader was tuned on caseClasses and run once unchanged: its first-run
 * agreement is reported in docs/explanation/grading.md. Cases whose verdict Math-Verify and the Qwen grader would give
 * differently are left out.
 */
export const heldOutCases: Record<string, readonly Case[]> = {
  numbers: [
    ['10^{3}', '1000', true],
    ['1 \\times 10^3', '1000', true],
    ['3.0 \\times 10^{8}', '3e8', true],
    ['2^{-2}', '0.25', true],
    ['-2^2', '-4', true],
    ['(-2)^2', '4', true],
    ['50', '50.0', true],
    ['1e-3', '0.001', true],
    ['-.5', '-1/2', true],
    ['6.0', '6', true],
    ['\\frac{7}{2}', '3.5', true],
    ['3.33', '\\frac{10}{3}', false],
    ['\\frac{2}{4}', '\\frac{1}{2}', true],
    ['2\\cdot 3!', '12', true],
    ['\\frac{10!}{8!}', '90', true],
    ['\\dbinom{6}{3}', '20', true],
  ],
  radicals_and_powers: [
    ['\\frac{1}{2}\\pi', '\\frac{\\pi}{2}', true],
    ['2\\sqrt{2}\\pi', '\\sqrt{8}\\pi', true],
    ['\\sqrt{2}/2', '1/\\sqrt{2}', true],
    ['5\\sqrt{2}', '\\sqrt{50}', true],
    ['\\frac{\\sqrt{6}}{3}', '\\sqrt{\\frac{2}{3}}', true],
    ['\\sqrt[4]{16}', '2', true],
    ['8^{1/3}', '2', true],
    ['(-8)^{1/3}', '-2', true],
    ['\\sqrt{x}', 'x^{1/2}', true],
    ['\\sqrt{-4}', '2i', true],
    ['i\\sqrt{2}', '\\sqrt{-2}', true],
    ['\\frac{1+i}{1-i}', 'i', true],
  ],
  functions: [
    ['e^{\\ln 2}', '2', true],
    ['\\log_{10} 100', '2', true],
    ['\\ln e', '1', true],
    ['\\sin(\\pi/6)', '0.5', true],
    ['\\sin^{2}(x)', '\\sin(x)^2', true],
    ['\\cos^{-1}(0)', '\\frac{\\pi}{2}', true],
    ['\\left\\lfloor \\frac{n}{2} \\right\\rfloor', '\\lfloor n/2 \\rfloor', true],
    ['\\frac{n(n-1)}{2}', '\\binom{n}{2}', true],
    ['e^{i\\theta}', '\\cos\\theta + i\\sin\\theta', true],
    ['\\ln(x^2)', '2\\ln x', false],
  ],
  expressions: [
    ['\\frac{x}{2}', '0.5x', true],
    ['\\frac{1}{2}x^2', 'x^2/2', true],
    ['(x+1)^2', 'x^2+2x+2', false],
    ['2 \\pi r', '2r\\pi', true],
    ['\\frac{4}{3}\\pi r^3', '\\frac{4\\pi r^3}{3}', true],
    ['\\frac{a+b}{2}', '\\frac{a}{2}+\\frac{b}{2}', true],
    ['\\alpha + 1', '1+\\alpha', true],
    ['x', 'y', false],
    ['\\frac{1}{\\sqrt{2}}', '0.7071', false],
  ],
  equations_and_assignments: [
    ['y = \\frac{1}{2}x + 1', 'y=0.5x+1', true],
    ['x^2 + y^2 = 25', 'y^2 + x^2 = 25', true],
    ['x^2+y^2-25=0', 'x^2+y^2=25', true],
    ['a_n = 2n+1', '2n+1', true],
    ['f(x) = x^2', 'x^2', true],
    ['p(x) = x^2 - 1', '(x-1)(x+1)', true],
    ['k = 1, 2, 3', '1, 2, 3', true],
    ['x=2 \\text{ or } x=-2', '\\pm 2', true],
  ],
  intervals_and_inequalities: [
    ['x \\in (0, 1)', '(0,1)', true],
    ['x \\in [1, \\infty)', 'x \\ge 1', true],
    ['\\frac{1}{2} < x < 1', '(\\frac12, 1)', true],
    ['x \\le -1 \\text{ or } x \\ge 1', '(-\\infty,-1] \\cup [1,\\infty)', true],
    ['x < -1 \\text{ or } x > 1', '(-\\infty,-1) \\cup (1,\\infty)', true],
    ['(1,2]', '(1,2)', false],
    ['[1,2]', '\\{1,2\\}', false],
    ['-\\infty', '-\\infty', true],
  ],
  sets_and_tuples: [
    ['\\{3\\}', '3', true],
    ['2,3', '2,3,3', false],
    ['\\emptyset', '\\{\\}', true],
    ['3 \\text{ and } 4', '3, 4', true],
    ['\\begin{pmatrix} 2 \\\\ -1 \\end{pmatrix}', '\\begin{pmatrix} 2 \\\\ 1 \\end{pmatrix}', false],
  ],
  text_units_percent: [
    ['\\text{A}', 'A', true],
    ['A', '(A)', true],
    ['B', '(A)', false],
    ['\\textbf{(C)}', 'C', true],
    ['1.5 \\text{ hours}', '1.5', true],
    ['\\$12.50', '12.5', true],
    ['12.50 dollars', '12.5', true],
    ['\\frac{1}{4}', '25\\%', true],
    ['0.25', '25\\%', true],
    ['10%', '10', true],
    ['10%', '0.1', true],
  ],
};

/**
 * A third batch, written after reading the kinds of cases in Math-Verify's regression tests (equations up to a
 * sign, order of terms, malformed fractions, interval openness, thousands separators, choices, percent) and run
 * once unchanged: 33 / 33 agreed at the first run.
 */
export const secondHeldOutCases: Record<string, readonly Case[]> = {
  equations: [
    ['34x+45y-20z+100=0', '-34x-45y+20z-100=0', true],
    ['2x + 3y = 6', '4x + 6y = 12', true],
    ['2x + 3y = 6', '4x + 6y = 6', false],
    ['y = x^2', 'x^2 - y = 0', true],
  ],
  expressions: [
    [
      '\\frac{\\sqrt{\\sqrt{11}+\\sqrt{194}}}{15+2\\sqrt{33}}',
      '\\frac{\\sqrt{\\sqrt{11}+\\sqrt{194}}}{2\\sqrt{33}+15}',
      true,
    ],
    ['(a+5)(b+2)', '(+5)(b+2)', false],
    ['2', '\\frac{1+\\sqrt{5}}{2}', false],
    ['1\\sqrt{19}', '1', false],
    ['x+2n+1', 'x+1', false],
    ['\\frac{10\\sqrt{10.5}}{27}', '\\frac{5\\sqrt{42}}{27}', true],
    ['\\frac{1}{3x^{2/3}}', '\\frac{1}{3\\sqrt[3]{x}^2}', true],
  ],
  matrices: [
    [
      '\\begin{pmatrix}\\frac{1}{3x^{2/3}}&0\\\\-\\sin(x)&0\\end{pmatrix}',
      '\\begin{pmatrix}\\frac{1}{3\\sqrt[3]{x}^2}&0\\\\-\\sin x&0\\end{pmatrix}',
      true,
    ],
    ['\\begin{bmatrix} 1 & 0 \\\\ 0 & 1 \\end{bmatrix}', '\\begin{pmatrix}1&0\\\\0&1\\end{pmatrix}', true],
  ],
  intervals: [
    ['(\\frac{3}{5},\\frac{8}{3}]', '(0.6,2.666666667]', true],
    ['[0,1)', '(0,1)', false],
    ['(-\\infty,-3] \\cup [2,\\infty)', '[-3,2]', false],
    ['\\left(\\frac{1}{5},\\frac{1}{6}\\right)', '(0.2, \\frac16)', true],
  ],
  numbers: [
    ['12,000,023', '12000023', true],
    ['14{,}916', '14916', true],
    ['-5', '-5.0', true],
    ['7,425,000', '7425000', true],
    ['1000.0', '1000', true],
    ['\\$1,000.99', '1000.99', true],
    ['2', 'AZYUK2A', false],
  ],
  text_and_choices: [
    ['\\text{(A)}', '\\text{A}', true],
    ['\\mathrm{(B)}', 'B', true],
    // An option with its text names the option (Qwen's choice_answer_clean reads the letter): issue 17.
    ['\\text{(D) } 12', 'D', true],
    ['\\text{(D) } 12', 'C', false],
  ],
  percent: [
    ['28\\%', '28', true],
    ['0.28', '28', false],
    ['\\frac{28}{100}', '28', false],
  ],
  sets: [
    ['\\{-1, 1\\}', '\\pm 1', true],
    ['\\{(1,2), (3,4)\\}', '(3,4), (1,2)', true],
    ['(1,2), (3,4)', '(1,2), (4,3)', false],
  ],
};
