import type { ConformanceCase } from './mathVerifyCases';

/**
 * A second held-out set for issue 37, written after the grader's issue-37 changes and first run unchanged (its
 * first-run agreement is in docs/benchmarks/eval.md): the cases of lighteval's extractive-match tests that
 * Math-Verify's own suite (mathVerifyCases.ts) does not repeat, grouped by the categories. Source:
 * huggingface/lighteval tests/unit/metrics/test_extractive_match.py @ 3fd15266bc8448b797e61462d293aa3fd40b3580
 * (test_extraction_abc, test_multilingual_extraction_abc, test_multilingual_extraction_math,
 * test_multilingual_extraction_math_latex_numbers). Each is a whole response graded against its gold, as
 * lighteval scores it; only the data is taken.
 */
export const lightevalCases: Record<string, readonly ConformanceCase[]> = {
  'multiple-choice letters': [
    { gold: 'C', pred: 'thinking about it I think the correct answer is C', expected: true },
    {
      gold: 'B',
      pred: "Let's think step by step. It's not A because it doesn't make sense, therefore I think it's B",
      expected: true,
    },
    { gold: 'D', pred: "The answer is for sure D, it can't be A or B", expected: true },
    { gold: 'D', pred: "The answer: D, it doesn't make sense for it to be A or B", expected: true },
    { gold: 'D', pred: "D. it can't be A or B", expected: true },
    { gold: '(D) Alina', pred: 'D', expected: true },
    { gold: '(A) Cecile', pred: 'C', expected: false },
    { gold: 'C Cecile', pred: 'C', expected: true },
    { gold: 'Alina and the answer is\n(C) Cecile', pred: 'C', expected: true },
    { gold: 'Alina and the answer is\nC Cecile', pred: 'C', expected: true },
    { gold: 'A Peter\nCelina bum', pred: 'A', expected: true },
    { gold: 'C', pred: 'réponse est C non A', expected: true },
    { gold: 'B', pred: 'B。 不是 A', expected: true },
    { gold: 'B', pred: 'B。不是 A', expected: true },
    { gold: 'B', pred: 'B不是 A', expected: true },
  ],
  'answer phrases and numbers in prose': [
    { gold: '105', pred: 'réponse est (35 + 70 = 105).', expected: true },
    { gold: '79', pred: 'donc 353 g - 79 g = 274 g. Donc, il a déjà 79 g de cire.', expected: true },
    { gold: '220', pred: "Réponse: Janeth aura encore 220 $ à payer d'ici 12 mois.", expected: true },
    {
      gold: '70',
      pred: 'La réduction est de 100 * 0,30 = 30 $. Le coût final est donc de 100 - 30 = 70',
      expected: true,
    },
    { gold: '4000', pred: ' 地块面积 = 72000 / 18 = 4000千克', expected: true },
    {
      gold: '300',
      pred: '来计算水池中水的流出时间：12000升/40升/分钟=300分钟。因此，水池中水将在300分钟内被放完。',
      expected: true,
    },
    { gold: '13/28', pred: '计划的比例为13/28', expected: true },
    { gold: '8/46', pred: '\\frac{4}{23}', expected: true },
    { gold: '$\\frac{9.5}{3.14159}$', pred: '$\\frac{9.5}{3.14159} \\approx 3.01$', expected: true },
    {
      gold: '2/5',
      pred: '} \\times \\frac{1}{3} = \\frac{6}{15} = \\frac{2}{5} ] 所以，每份应该是 (\\frac{2}{5}) 吨。 答案：每份应该是 (\\frac{2}{5}) 吨。',
      expected: true,
    },
    { gold: '0', pred: 'So the os then when we 9/3 we get 8 so the answer is 0', expected: true },
    { gold: '1', pred: 'so $x+y = 1000$ therefore answer is $1$', expected: true },
    { gold: '1', pred: 'how many $? just about 1$', expected: true },
    {
      gold: '92',
      pred: 'لإيجاد ناتج العملية الحسابية 79 * 2 - 66، سنقوم بالخطوات التالية: 1. أولاً، نقوم بضرب 79 في 2: 79 * 2 = 158 2. ثم نطرح 66 من النتيجة السابقة: 158 - 66 = 92 لذا، ناتج العملية الحسابية 79 * 2 - 66 هو **92**.',
      expected: true,
    },
    {
      gold: '13',
      pred: '首先，我们知道最初有3只鸟和4只鹳鸟坐在篱笆上，所以总共有3 + 4 = 7只鸟和鹳鸟。 然后，又有6只鹳鸟来加入它们，所以鹳鸟的总数变成4 + 6 = 10只。 因此，现在篱笆上总共有3只鸟（假设鸟的数量没有变化）和10只鹳鸟，所以一共有3 + 10 = 13只鸟和鹳鸟。',
      expected: true,
    },
  ],
};
