import { categoryCases } from './categoryCases';
import { commitmentCases } from './commitmentCases';
import { heldOutGraderCases } from './heldOutGraderCases';
import { heldOutMathVerifyCases } from './heldOutMathVerifyCases';
import { lightevalCases } from './lightevalCases';
import { mathVerifyCases } from './mathVerifyCases';
import { minervaCases } from './minervaCases';
import { qwenCases } from './qwenCases';
import type { Difference, Suite } from './suite';

const differences = (
  entries: ReadonlyArray<readonly [gold: string, predIncludes: string, reason: string]>,
): Difference[] => entries.map(([gold, predIncludes, reason]) => ({ gold, predIncludes, reason }));

/**
 * The held-out suite of issue 37: cases of six public graders' tests (categoryCases.ts names each source),
 * grouped by the categories of the grader's last misses; each case is graded at its own level.
 */
export const categorySuite: Suite = {
  name: 'held-out by category',
  source:
    'hendrycks/math, MARIO_EVAL, NeMo-Skills, inspect_ai, Qwen2.5-Math, Math-Verify tests (test/conformance/categoryCases.ts)',
  groups: categoryCases,
  level: 'answer',
  differences: differences([
    [
      '1, 2, 3',
      '1, 3, 2',
      'a prediction that lists three or more numbers in neither increasing nor decreasing order commits to that order (hendrycks/math: "4, 10, -2" is not "10, 4, -2"); MARIO_EVAL reads every bare comma list as a set',
    ],
    [
      '10cm',
      '10',
      'a unit of two letters or more glued to the number is a unit (20cm is 20 cm); MARIO_EVAL needs a space before a short unit, since its parser cannot tell 10cm from 10·c·m',
    ],
  ]),
};

/** The second held-out suite of issue 37: lighteval's extractive-match cases that Math-Verify's suite lacks. */
export const lightevalSuite: Suite = {
  name: 'held-out: lighteval',
  source: 'huggingface/lighteval tests/unit/metrics/test_extractive_match.py (commit 3fd1526)',
  groups: lightevalCases,
  level: 'response',
  differences: differences([
    ...['C Cecile', 'Alina and the answer is\nC Cecile', 'A Peter\nCelina bum'].map(
      (gold) =>
        [
          gold,
          '',
          'lighteval\'s letter mode is told the gold is an option and reads a letter out of it; here a gold is an answer, read as an option letter only alone, in brackets or after an answer phrase ("C", "(C) Cecile", "the answer is\n(C) Cecile"): an unbracketed capital before a word ("A Tale of Two Cities", "C Major") may be the answer itself, and a prediction "C" must not equal "C Major"',
        ] as const,
    ),
    [
      '79',
      'donc 353 g',
      '"il a déjà 79 g" states 79 with "has" (a), which is no stating verb in any language here (nor in English: "he has 79 g" is no answer); lighteval takes the last number',
    ],
    [
      '220',
      'Réponse: Janeth',
      'the answer phrase is followed by a sentence with two numbers (220 and 12) and no stating verb, so neither is its answer (as in English); lighteval takes the first number within 50 characters of the anchor',
    ],
    [
      '300',
      '来计算水池中水的流出时间',
      'the value after the last "=" runs on into the next sentence ("300分钟。因此，水池中水将在300分钟内被放完"), as in English ("= 300 minutes. So the pool ..."), and is no answer; lighteval takes the last number',
    ],
    [
      '1',
      'how many $?',
      '"just about 1" is a hedge, and the dollar signs pair across it; lighteval reads "1" out of the span',
    ],
  ]),
};

/** The three public graders' suites, with every case we decide differently and why (docs/benchmarks/eval.md). */
export const suites: readonly Suite[] = [
  {
    name: 'Math-Verify',
    source: 'huggingface/Math-Verify tests/test_*.py (commit 5d148cf)',
    groups: mathVerifyCases,
    level: 'response',
    differences: differences([
      [
        '$(1,3)$',
        '{1,3}$',
        'braces without a backslash are a TeX group, so {1,3} is the list 1, 3, not the ordered pair or interval (1,3)',
      ],
      [
        '$100%$',
        'increases by 100%.',
        'the number stands in prose after the last math span with no verb that states it ("increases by 100%"); taking the last number anywhere is the opt-in rule last_number',
      ],
      [
        '$x \\in [-2,7]$',
        '$-2 \\\\le x \\\\le 7$',
        'an interval and the inequality describing it are equal in both directions; Math-Verify compares them only when the prediction is the set (allow_set_relation_comp off)',
      ],
      [
        '$\\\\boxed{35 cm} ++++++ \\\\boxed{4}$',
        '35 cm,4}$',
        'boxes with "++++++" between them are separate answers; only punctuation and "and"/"or" join boxes into one answer',
      ],
      [
        '\\\\boxed{W(n) = 1 \\\\text{ and } W(n) = -1',
        'W(x)=1orW(x)=-1',
        "the gold's box is never closed, so the gold has no answer to compare with",
      ],
      [
        '$1 - \\frac{1}{\\mathrm{e}}$',
        '$1 + \\frac{1}{\\mathrm{e}}$',
        'the two values differ (1 - 1/e and 1 + 1/e); this label of the suite credits a wrong answer',
      ],
      [
        '$f(x)$',
        '$f(y)$',
        'run in Math-Verify with strict=False (variables renamed freely); we have no such mode, since in a reward x + 1 must not equal y + 1',
      ],
    ]),
  },
  {
    name: 'Qwen2.5-Math',
    source: 'QwenLM/Qwen2.5-Math evaluation/grader.py (math_equal, _test_math_equal)',
    groups: qwenCases,
    level: 'answer',
    options: { relTol: 1e-4 },
    differences: differences([
      [
        '0.5',
        '50',
        'without a percent sign on either side 50 is not 0.5; Qwen tries x/100 and x*100 for every pair of numbers',
      ],
    ]),
  },
  {
    name: 'minerva_math',
    source: 'EleutherAI/lm-evaluation-harness lm_eval/tasks/minerva_math/utils.py',
    groups: minervaCases,
    level: 'response',
    differences: differences([]),
  },
  categorySuite,
];

/** Held-out suite A of issue 37: Math-Verify's tests newer than the ported Math-Verify suite. */
export const heldOutMathVerifySuite: Suite = {
  name: 'held-out A: newer Math-Verify tests',
  source:
    'huggingface/Math-Verify tests/test_mixed_number_extraction.py, test_failed_latex_span.py, test_all.py (test/conformance/heldOutMathVerifyCases.ts)',
  groups: heldOutMathVerifyCases,
  level: 'response',
  differences: differences([
    [
      '2',
      '4 4/9 2',
      'numbers side by side with no operator are no answer ("1 2 3" may be a list, whose last item is not its answer); Math-Verify takes the last of them',
    ],
    [
      '4/9',
      'There are 4 objects and 4/9 remain.',
      'the sentence states two values joined by "and", so neither is its answer (it was read as 4, which paid a gold 4 that Math-Verify calls wrong); Math-Verify takes the last number of the text, here the opt-in rule last_number (it would read "there are 12 sequences of length 5" as 5)',
    ],
    [
      '42',
      '\\sum_{k=0}^n\\bigl(k\\bigr)',
      'the answer the response states ("Final answer is $...$", or two spans joined by "and", a list) stays its answer: this grader reads the span (\\sum as a symbol, \\bigl as a bracket), while the source\'s premise is that Math-Verify cannot parse it and so takes another number; taking a number the model did not state as its answer would pay answers it never committed to',
    ],
    [
      '1/2',
      '\\sum_{k=0}^n\\bigl(k\\bigr)',
      'the answer the response states ("Final answer is $...$") stays its answer: this grader reads the span, while the source\'s premise is that Math-Verify cannot parse it and so takes the number written after it ("I hope. 1/2")',
    ],
  ]),
};

/** Held-out suite B of issue 37: other graders' cases no earlier suite ported. */
export const heldOutGraderSuite: Suite = {
  name: "held-out B: other graders' remaining cases",
  source: 'MARIO_EVAL, hendrycks/math, NeMo-Skills, inspect_ai (test/conformance/heldOutGraderCases.ts)',
  groups: heldOutGraderCases,
  level: 'answer',
  differences: differences([]),
};

/**
 * Issue 45's suite: whole responses around what a response commits to (a stated answer followed by a check, a P.S. or
 * a rejected alternative; hedges; "X, not Y"), in mathematics and option letters. Written for the issue; every case
 * must agree, and no wrong answer may be paid.
 */
export const commitmentSuite: Suite = {
  name: 'commitment (issue 45)',
  source: 'written for issue 45 (test/conformance/commitmentCases.ts)',
  groups: commitmentCases,
  level: 'response',
  differences: differences([]),
};
