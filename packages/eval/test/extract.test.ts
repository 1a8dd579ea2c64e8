import { describe, expect, it } from 'vitest';
import { extractAnswer, grade } from '../src/index';

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
