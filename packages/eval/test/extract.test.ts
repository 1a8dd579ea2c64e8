import { describe, expect, it } from 'vitest';
import { extractAnswer, extractGoldAnswer, grade } from '../src/index';

describe('extractAnswer', () => {
  it('takes the last \\boxed{} with nested braces', () => {
    expect(extractAnswer('First \\boxed{1}, then \\boxed{\\frac{1}{\\sqrt{2}}}.')).toBe(
      '\\frac{1}{\\sqrt{2}}',
    );
    expect(extractAnswer('So \\boxed{\\{1, 2\\}} is it')).toBe('\\{1, 2\\}');
    expect(extractAnswer('\\fbox{42}')).toBe('42');
    expect(extractAnswer('\\boxed 5 is the answer')).toBe('5');
  });

  it('joins adjacent boxes into one answer and keeps separated ones apart', () => {
    expect(extractAnswer('The roots are \\boxed{1}, \\boxed{2} and \\boxed{3}.')).toBe('1, 2, 3');
    expect(extractAnswer('$\\boxed{1}$ and $\\boxed{-1}$')).toBe('1, -1');
    expect(extractAnswer('We had \\boxed{7} earlier. After checking, the result is \\boxed{8}.')).toBe('8');
  });

  it('prefers "final answer is" over boxes, boxes over "Answer:", and those over the last math span', () => {
    expect(extractAnswer('\\boxed{3} ... The final answer is $4$. I hope it is correct.')).toBe('4');
    expect(extractAnswer('Answer: 7\nso \\boxed{9}')).toBe('9');
    expect(extractAnswer('We find $x = 2$ and so\nAnswer: 12')).toBe('12');
    expect(extractAnswer('Thus $y=3$ and then $\\frac{1}{2}$ is left.')).toBe('\\frac{1}{2}');
    expect(extractAnswer('Compute \\[ 2+2 = 4 \\]')).toBe('2+2 = 4');
    expect(extractAnswer('no answer here')).toBeNull();
  });

  it('reads malformed boxes, and only the last of repeated boxes (issue 37)', () => {
    expect(extractAnswer('So the total is boxed {19}')).toBe('19');
    expect(extractAnswer('\\beginboxed{8\\sqrt{6}}')).toBe('8\\sqrt{6}');
    expect(extractAnswer('the unboxed{3} value', { rules: ['boxed'] })).toBeNull();
    expect(extractAnswer(`${'\\boxed{9} '.repeat(400)}\\boxed{42}`)).toBe('42');
    expect(extractAnswer('\\boxed{1}, \\boxed{2}')).toBe('1, 2');
  });

  it('reads prose answers whole, a last line of mathematics, and stops at a reason (issue 37)', () => {
    expect(extractAnswer('odd $n$')).toBe('odd $n$');
    expect(extractAnswer('$g(x) = x^a$ for some $a>0$.')).toBe('$g(x) = x^a$ for some $a>0$');
    // A label is not a qualifying word: the math span is the answer.
    expect(extractAnswer('Answer $ 9 $')).toBe('9');
    expect(extractAnswer('First compute 6*7.\n42')).toBe('42');
    expect(extractAnswer('We are done.\n\\begin{pmatrix} 1 \\\\ 2 \\end{pmatrix}')).toBe(
      '\\begin{pmatrix} 1 \\\\ 2 \\end{pmatrix}',
    );
    expect(extractAnswer('We are done.\nthe end')).toBeNull();
    expect(extractAnswer('The answer is 42 because geometry proves it')).toBe('42');
    expect(extractAnswer('x<2')).toBe('x<2');
  });

  it('reads no bound as a value', () => {
    expect(grade('The answer is at least 5.', '5').correct).toBe(false);
    expect(grade('Answer: no more than 4 apples', '4').correct).toBe(false);
    expect(grade('Final Answer: Jane started growing it 3 hours ago.', '3').correct).toBe(true);
  });

  it('reads no single value from a sentence that states two joined by "and"', () => {
    expect(grade('There are 4 objects and 4/9 remain.', '4').correct).toBe(false);
    expect(grade('So there are 12 sequences of length 5.', '12').correct).toBe(true);
    expect(grade('x is 3 and y is 4.', '4').correct).toBe(true);
  });

  it('reads what a chain of arithmetic in a sentence equals, never its first number', () => {
    expect(extractAnswer('So there are 3 + 10 = 13 birds.')).toBe('13');
    expect(grade('So there are 3 + 10 = 13 birds.', '3').correct).toBe(false);
    expect(grade('The total is 2 * 6, which we check.', '12').correct).toBe(true);
    expect(grade('The total is 2 * 6, which we check.', '2').correct).toBe(false);
  });

  it('reads no statement inside a TeX group: the "=" of a sum\'s lower limit states nothing', () => {
    expect(extractAnswer('\\sum_{k=0}^n\\bigl(k\\bigr)')).toBe('\\sum_{k=0}^n\\bigl(k\\bigr)');
    expect(grade('\\sum_{k=1}^{n} k', '\\sum_{k=1}^{n} k').correct).toBe(true);
    expect(extractAnswer('\\sum_{i=1}^{3} i = 6')).toBe('6');
  });

  it('never takes a number out of code (issue 37)', () => {
    expect(extractAnswer("__import__('os').system('touch marker') or 0")).toBeNull();
    expect(extractAnswer("First we run it.\nopen('marker', 'w').write('x') or 0")).toBeNull();
    expect(extractAnswer('Final Answer: Jane started growing it 3 hours ago.')).toBe('3');
  });

  it('reads the option letter a response opens with, only against an option-letter gold (issue 37)', () => {
    expect(grade('C. x = 42', 'C')).toMatchObject({ correct: true, extracted: 'C' });
    expect(grade('C. x = 42', '42')).toMatchObject({ correct: true, extracted: '42' });
    expect(grade('A. Because B is not valid', 'B')).toMatchObject({ correct: false, extracted: 'A' });
    expect(grade('thinking about it I think the correct answer is C', 'C').correct).toBe(true);
    expect(grade("Let's see. It's not A because of the sign, therefore I think it's B", 'B').correct).toBe(
      true,
    );
    expect(grade('The answer is not A, it is C', 'A').correct).toBe(false);
    expect(grade('A good start is to factor the cubic.', 'A').correct).toBe(false);
    expect(grade('The answer is A hydrogen atom', 'A').correct).toBe(false);
    expect(grade('So the answer is "C".\n\nAnswer: "C"', 'C').correct).toBe(false);
  });

  it('obeys a configured rule order', () => {
    const text = 'Answer: 7\nso \\boxed{9}';
    expect(extractAnswer(text, { rules: ['answer_phrase', 'boxed'] })).toBe('7');
    expect(extractAnswer(text, { rules: ['last_math'] })).toBeNull();
    expect(extractAnswer('so we get 12 apples, then 1,250 pears.', { rules: ['last_number'] })).toBe('1,250');
    expect(extractAnswer('so we get 12 apples, then 1,250 pears.')).toBeNull();
  });

  it('stops where the model runs on into a new turn', () => {
    const runOn = 'So the sum is \\boxed{12}.<|im_end|>\n<|im_start|>user\nNow compute \\boxed{7}';
    expect(extractAnswer(runOn)).toBe('12');
    const finalAnswer = 'The final answer is 12,000,023. I hope it is correct. <|im_start|>user';
    expect(grade(finalAnswer, '12000023').correct).toBe(true);
  });

  it('reads "the answer is" like "Answer:"', () => {
    expect(extractAnswer('After simplifying, the answer is 42.')).toBe('42');
    expect(extractAnswer('The answer is $\\frac{3}{4}$ of the cake.')).toBe('\\frac{3}{4}');
  });

  it('reads only the final assistant text: after the last turn marker and the last tool output', () => {
    const trajectory = [
      '<|im_start|>user\nWhat is \\boxed{2}+2?<|im_end|>',
      '<|im_start|>assistant\nLet me compute.\n```python\nprint(2+2)\n```\n```output\n\\boxed{5}\n```',
      'So the sum is \\boxed{4}.<|im_end|>',
    ].join('\n');
    expect(extractAnswer(trajectory)).toBe('4');
    const answerOnlyInTool =
      '<|im_start|>assistant\n```python\nprint(1)\n```\n```output\n\\boxed{1}\n```\nDone.';
    expect(extractAnswer(answerOnlyInTool)).toBeNull();
    expect(extractAnswer(answerOnlyInTool, { finalTextOnly: false })).toBe('1');
    const hermes = '<tool_call>{}</tool_call>\n<tool_response>\n\\boxed{9}\n</tool_response>\nSo \\boxed{8}.';
    expect(extractAnswer(hermes)).toBe('8');
  });
});

// Issue 45: the suite test/conformance/commitmentCases.ts grades whole responses; these pin the edges of each cut.
describe('what a stated answer commits to (issue 45)', () => {
  it('ends the statement at its first sentence end after a value, never at a decimal point or inside math', () => {
    expect(extractAnswer('The answer is 3.5 m. Then the area is 12.')).toBe('3.5 m');
    expect(extractAnswer('The answer is $x = 1. 5$ then $7$.')).toBe('x = 1. 5');
    expect(extractAnswer('Answer: 12. Check: 12 = 3 * 4.')).toBe('12');
    // A semicolon ends a sentence only before words: a list of values stays one answer.
    expect(extractAnswer('Answer: 1; 2; 3')).toBe('1; 2; 3');
    expect(extractAnswer('The answer is $5$; substituting back, $10$.')).toBe('5');
  });

  it('keeps the stated value before a rejection, and reads none from a statement that opens with one', () => {
    expect(extractAnswer('La respuesta es 6, no 5.')).toBe('6');
    expect(extractAnswer('Die Antwort ist 6, nicht 5.')).toBe('6');
    expect(extractAnswer('The answer is $6$ and not $5$.')).toBe('6');
    expect(extractAnswer('The answer is not $5$.')).toBeNull();
    // Without a stated answer: the span a rejection follows, or no answer.
    expect(extractAnswer('So $x = 6$, not $5$.')).toBe('x = 6');
    expect(extractAnswer('We had $a = 3$. So $x$ is not $5$.')).toBeNull();
    expect(extractAnswer('答案：不是5')).toBeNull();
    // A rejection word among words is part of the answer.
    expect(extractAnswer('The answer is no solution.')).toBe('no solution');
  });

  it('reads an alternative offered after the answer, on its line or the next, as a hedge', () => {
    expect(extractAnswer('\\boxed{5}. Or maybe 7.')).toBeNull();
    expect(extractAnswer('Final answer: $9$.\nOr maybe $8$.')).toBeNull();
    expect(extractAnswer('答案是5。或许是7。')).toBeNull();
    expect(extractAnswer('La réponse est 5, ou peut-être 7.')).toBeNull();
    expect(extractAnswer('The answer is $5$. Wait, let me recheck: $7$.')).toBeNull();
    expect(extractAnswer('\\boxed{5}. Actually, $7$.')).toBeNull();
    expect(extractAnswer('The answer is 5. No, 7.')).toBeNull();
    expect(extractAnswer('The final answer is $3$; however $4$ also works.')).toBeNull();
    expect(extractAnswer('The answer is 5. No other value works.')).toBe('5');
    // Alternatives joined inside the statement are one list, which equals neither value.
    expect(extractAnswer('The answer is either $3$ or $4$.')).toBe('3, 4');
  });

  it('reads a lone dollar sign as currency, not as a math delimiter', () => {
    expect(extractAnswer('Answer: 30 $. Then we add 12.')).toBe('30');
  });
});

// Issue 37, fourth round: lighteval's answer anchors per language (huggingface/lighteval
// src/lighteval/tasks/templates/utils/translation_literals.py @ 3fd1526) and the stating verbs, read with the
// strictness of the English rules; the near misses of test/conformance/nearMissCases.ts are the refusals in bulk.
describe('answers in other languages', () => {
  it('reads an answer phrase in French, German, Spanish, Portuguese, Italian, Russian, Chinese, Japanese, Arabic', () => {
    const stated = [
      'Calculons 3 + 9. La réponse est 12.',
      'Réponse : 12',
      "Donc c'est 12.",
      'Die Antwort lautet 12.',
      'La respuesta es 12.',
      'A resposta é 12.',
      'La risposta è 12.',
      'Ответ: 12',
      'Значит, ответ равен 12.',
      '答案是12。',
      '最终答案：12',
      '答えは12です。',
      'الإجابة هي 12',
      'الإجابة: 12',
    ];
    for (const response of stated) expect([response, extractAnswer(response)]).toEqual([response, '12']);
    expect(extractAnswer('答案：12，因为3乘4等于12。')).toBe('12');
    expect(extractAnswer('Réponse: 12, parce que 3 fois 4 font 12.')).toBe('12');
  });

  it('reads a number a sentence states with a verb of its language, in Markdown bold or after a chain', () => {
    expect(extractAnswer('计划的比例为13/28')).toBe('13/28');
    expect(extractAnswer('所以一共有3 + 10 = 13只鸟和鹳鸟。')).toBe('13');
    expect(extractAnswer('ناتج العملية الحسابية 79 * 2 - 66 هو **92**.')).toBe('92');
    expect(extractAnswer('So the result of 79 * 2 - 66 is **92**.')).toBe('92');
    expect(grade('答案：每份应该是 (\\frac{2}{5}) 吨。', '2/5').correct).toBe(true);
    expect(grade('合計は15個です。', '15').correct).toBe(true);
  });

  it('refuses negations, bounds, ranges and hedges in every language, as in English', () => {
    const wrong: ReadonlyArray<readonly [string, string]> = [
      ["La réponse n'est pas 5.", '5'],
      ['La respuesta no es 5.', '5'],
      ['Die Antwort ist mindestens 5.', '5'],
      ['Ответ не равен 5.', '5'],
      ['答案不是5。', '5'],
      ['答案至少为5。', '5'],
      ['答案是5以上。', '5'],
      ['答えは5ではありません。', '5'],
      ['因为13是质数，所以不行。', '13'],
      ['总数为5至7只。', '5'],
      ['所以一共有3只鸟和10只鹳鸟。', '3'],
      ['Die Summe ist 3 bis 5.', '3'],
      ['So there are 5 or more solutions.', '5'],
      ['The count is 3 to 5.', '3'],
      ['Final Answer: It is about 3 hours.', '3'],
      ['If it is 5, then it fails.', '5'],
      ['答案可能是5。', '5'],
      ['如果是5，那么不行。', '5'],
      ['Ответ, возможно, 5.', '5'],
    ];
    for (const [response, gold] of wrong)
      expect([response, grade(response, gold).correct]).toEqual([response, false]);
  });

  it("reads option letters after another language's answer phrase, never after a negation", () => {
    expect(grade('答案是B', 'B').correct).toBe(true);
    expect(grade('Die Antwort lautet D.', 'D').correct).toBe(true);
    expect(grade('La respuesta correcta es (B).', 'B').correct).toBe(true);
    expect(grade('الإجابة هي C', 'C').correct).toBe(true);
    expect(grade('答案不是A', 'A').correct).toBe(false);
    expect(grade('答案：A或B', 'A').correct).toBe(false);
    expect(grade('答えはAかBです', 'A').correct).toBe(false);
  });

  it("reads a gold's own answer phrase: the gold is its stated answer", () => {
    expect(extractGoldAnswer('Alina and the answer is\n(C) Cecile')).toBe('(C) Cecile');
    expect(grade('C', 'Alina and the answer is\n(C) Cecile').correct).toBe(true);
    expect(grade('C', 'C Major').correct).toBe(false);
  });
});

describe('extraction of the misses of issue 17', () => {
  it('reads plain-text final answers and the value an answer sentence states', () => {
    expect(extractAnswer('The answer is 5.')).toBe('5');
    expect(extractAnswer('Final Answer: The largest $n$ is 34.')).toBe('34');
    expect(extractAnswer('Final Answer: The volume of $ABCDEFGH$ is 120. I hope it is correct.')).toBe('120');
    expect(extractAnswer('Final Answer: Jane started growing it 3 hours ago. I hope it is correct.')).toBe(
      '3',
    );
    expect(extractAnswer('We get $d = 90/n$. Therefore, there are 12 distinct sequences.')).toBe('12');
  });

  it('reads a short response that is only its answer, but not prose or a cut-off box', () => {
    expect(extractAnswer('28 percent')).toBe('28 percent');
    expect(extractAnswer('-5')).toBe('-5');
    expect(extractAnswer('the number is not 10 which is 1,000.99€')).toBe('1,000.99');
    expect(extractAnswer('so it is 1,000.99m²')).toBe('1,000.99');
    expect(extractAnswer('Done.')).toBeNull();
    expect(extractAnswer('\\boxed{12')).toBeNull();
    expect(extractAnswer('Answer $ \n 9 \n $')).toBeNull();
  });

  it('joins boxes separated by \\quad\\text{and}\\quad, a few words and "and", or a label', () => {
    expect(extractAnswer('$\\boxed{(2, 2)} \\quad \\text{and} \\quad \\boxed{(6, 2)}$')).toBe(
      '(2, 2), (6, 2)',
    );
    expect(extractAnswer('\\boxed{1} papers and \\boxed{2} bins')).toBe('1, 2');
    expect(extractAnswer('\\( y_1 = \\boxed{x+1} \\) and \\( y_2 = \\boxed{x-1} \\)')).toBe('x+1, x-1');
    expect(extractAnswer('\\boxed{1} no no no no no \\boxed{2}')).toBe('2');
  });

  it('reduces a gold given as a worked solution to its final answer', () => {
    expect(extractGoldAnswer('so $x=1/5$, or $\\boxed{20}$ percent.')).toBe('20');
    expect(extractGoldAnswer('Final Answer: The final answer is $28 \\%$. I hope it is correct.')).toBe(
      '28 \\%',
    );
    expect(extractGoldAnswer('$x = 1$')).toBe('$x = 1$');
    expect(grade('\\boxed{20\\%}', 'Half are children, so $x=1/5$, or $\\boxed{20}$ percent.').correct).toBe(
      true,
    );
  });

  it("grades the embedded task's responses as the RL reward reads them", () => {
    const response = (answer: string) =>
      `\`\`\`python\nprint(4821*367-1290)\n\`\`\`\n\`\`\`output\n1768017\n\`\`\`\nA: ${answer}\n`;
    expect(grade(response('\\boxed{1768017}'), '1768017').correct).toBe(true);
    expect(grade(response('\\boxed{1768018}'), '1768017').correct).toBe(false);
    expect(grade(response('\\boxed{17680'), '1768017').reason).toBe('no_answer');
    expect(grade(response(''), '1768017').reason).toBe('no_answer');
  });
});

describe('grade', () => {
  it('returns the extracted answer, the gold and the reason', () => {
    expect(grade('so $x = \\dfrac{1}{2}$, i.e. \\boxed{0.5}', '\\frac12')).toEqual({
      correct: true,
      extracted: '0.5',
      gold: '\\frac12',
      reason: 'equivalent',
    });
    expect(grade('I give up.', '3')).toEqual({
      correct: false,
      extracted: null,
      gold: '3',
      reason: 'no_answer',
    });
    expect(grade('\\boxed{4}', '3').reason).toBe('not_equivalent');
    expect(grade('\\boxed{(1,2}', '3').reason).toBe('unparsable');
    expect(grade('\\boxed{\\text{Bob}}', '\\text{Alice}').reason).toBe('not_equivalent');
  });

  it('rejects option values that would silently change verdicts, naming the option', () => {
    expect(() => grade('\\boxed{1}', '1', { percent: 'half' as never })).toThrow(
      /percent must be one of either/,
    );
    expect(() => grade('\\boxed{1}', '1', { relTol: -1 })).toThrow(/relTol must be a finite number/);
    expect(() => grade('\\boxed{1}', '1', { limits: { maxDepht: 3 } as never })).toThrow(
      /unknown limit "maxDepht"/,
    );
  });

  it('accepts any of several golds (OlympiadBench lists)', () => {
    expect(grade('\\boxed{x+1}', ['x-1', '1+x']).correct).toBe(true);
    expect(grade('\\boxed{x}', ['x-1', '1+x']).correct).toBe(false);
  });
});
