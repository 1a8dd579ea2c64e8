import { describe, expect, it } from 'vitest';
import { extractChoice, formatChoicePrompt, gradeChoice, shuffleChoices } from '../src/index';

// Answer forms of public graders' multiple-choice extraction: openai/simple-evals (common.py
// ANSWER_PATTERN_MULTICHOICE, `Answer[ \t]*:[ \t]*\$?([A-D])\$?`: "Answer:C"; it matches "answer: b"
// case-insensitively but scores the "b" against the gold "B" as wrong, as lighteval's gpqa_instruct_metric test
// does), lm-evaluation-harness's GPQA filters (EleutherAI/lm-evaluation-harness, tasks/gpqa: "(X)" and
// "The answer is (X)"), and boxed letters as math-tuned models write them. Where simple-evals takes the first
// "Answer:" of a response, the last statement wins here (a reasoning model revises).
const cases: readonly [string, string | null][] = [
  ['Reasoning...\nAnswer: C', 'C'],
  ['Answer:C', 'C'],
  ['answer: b', null],
  ['Answer: $c$', null],
  ['Answer: $C$', 'C'],
  ['Answer: a prime number', null],
  ['The answer is a', null],
  ['**Answer:** (B)', 'B'],
  ['The correct answer is (D).', 'D'],
  ['The final answer is $\\boxed{A}$', 'A'],
  ['So we get \\boxed{\\text{(C)}}.', 'C'],
  ['\\boxed{B. 42}', 'B'],
  ['Final Answer: C. x = 42', 'C'],
  ['I think the answer is A or B.', null],
  ['Answer: (A) and (C)', null],
  ['After all that, the choice is clear.\n\nD', 'D'],
  ['...\n(B)', 'B'],
  ['**C**', 'C'],
  ['The answer is A hydrogen atom', null],
  ['No idea.', null],
  ['Answer: E', null],
];

describe('extractChoice', () => {
  it.each(cases)('%j -> %s', (response, letter) => {
    expect(extractChoice(response)?.letter ?? null).toBe(letter);
  });

  it('reads the option a response names by its text', () => {
    const optionTexts = ['Oxygen', 'Nitrogen', 'Argon', 'Carbon dioxide'];
    expect(extractChoice('So the answer is nitrogen.', { optionTexts })).toEqual({
      letter: 'B',
      rule: 'answer_phrase',
    });
    expect(extractChoice('Most of it is\nNitrogen', { optionTexts })).toEqual({
      letter: 'B',
      rule: 'option_text',
    });
    expect(extractChoice('\\boxed{\\text{Argon}}', { optionTexts })).toEqual({ letter: 'C', rule: 'boxed' });
  });

  it('takes the last statement, and a box before an answer phrase', () => {
    expect(extractChoice('Answer: A\nWait, that is wrong.\nAnswer: D')?.letter).toBe('D');
    expect(extractChoice('\\boxed{B}\nAnswer: A')?.letter).toBe('B');
  });

  it('ignores choices stated before the last assistant turn', () => {
    expect(extractChoice('<|im_start|>user\nAnswer: A<|im_end|>\n<|im_start|>assistant\nHmm.')).toBeNull();
  });

  it('reads the letter a response opens or ends with, never one after a negation, and stops at a hedge', () => {
    expect(extractChoice('C. x = 42')).toEqual({ letter: 'C', rule: 'opening' });
    expect(extractChoice('B。不是 A')).toEqual({ letter: 'B', rule: 'opening' });
    expect(extractChoice('A good start is to factor the cubic.')).toBeNull();
    expect(extractChoice("It's not A, therefore I think it's B")).toEqual({ letter: 'B', rule: 'closing' });
    expect(extractChoice('The answer is for sure D, it cannot be A or B')).toEqual({
      letter: 'D',
      rule: 'answer_phrase',
    });
    expect(extractChoice('The answer is not A')).toBeNull();
    // A letter that ends a name is no choice, after an answer phrase or at the end.
    expect(extractChoice('The answer is hepatitis B')).toBeNull();
    expect(extractChoice('Citrus fruit is rich in vitamin C.')).toBeNull();
    expect(extractChoice('So I pick (C).')?.letter).toBe('C');
    // The hedge ends the search: the closing "B" is not read on.
    expect(extractChoice('I think the answer is A or B')).toBeNull();
    expect(extractChoice('So the answer is "C".\n\nAnswer: "C"')).toBeNull();
  });

  it('pays the last committed box or answer line and never a list of options (issue 45)', () => {
    expect(extractChoice('\\boxed{C}\\boxed{A}')).toEqual({ letter: 'A', rule: 'boxed' });
    expect(extractChoice('\\boxed{B}, \\boxed{C}')).toBeNull();
    expect(extractChoice('\\boxed{B}. Or maybe C.')).toBeNull();
    expect(extractChoice('Answer: (A), (B)')).toBeNull();
    // A full stop ends the choice: what follows is a sentence about another option.
    expect(extractChoice('Answer: A. B is wrong because it ignores friction.')?.letter).toBe('A');
    expect(extractChoice('C\nC')?.letter).toBe('C');
    expect(extractChoice('So C.')).toEqual({ letter: 'C', rule: 'closing' });
    expect(extractChoice('Therefore (D).')?.letter).toBe('D');
  });

  it('reads no opening letter from a response that goes through the options (issue 45)', () => {
    const review = '(A) fails the symmetry test.\n(B) gives the wrong sign.\n(C) fits both limits.';
    expect(extractChoice(review)).toBeNull();
    expect(extractChoice(`${review}\nSo C.`)?.letter).toBe('C');
    expect(extractChoice('C. The other options fail.\nC is consistent with both limits.')?.letter).toBe('C');
  });

  it('reads a small option label with its bracket, unless its text names another option (issue 45)', () => {
    const optionTexts = ['Oxygen', 'Nitrogen', 'Argon', 'Carbon dioxide'];
    expect(extractChoice('Answer: c) Argon', { optionTexts })?.letter).toBe('C');
    expect(extractChoice('Answer: (b)', { optionTexts })?.letter).toBe('B');
    expect(extractChoice('Answer: c) Nitrogen', { optionTexts })).toBeNull();
    expect(extractChoice('Answer: c', { optionTexts })).toBeNull();
  });

  it('knows more letters when told, and refuses a bad letter set', () => {
    expect(extractChoice('Answer: F', { letters: 'ABCDEFGHIJ' })?.letter).toBe('F');
    expect(() => extractChoice('Answer: A', { letters: 'AAB' })).toThrow(/distinct capitals/);
  });
});

describe('shuffleChoices', () => {
  const record = { id: 'rec1', question: 'Q?', correct: 'right', incorrect: ['w1', 'w2', 'w3'] };

  it('keeps every option once, with the gold letter on the right one', () => {
    const problem = shuffleChoices(record, 7);
    expect([...problem.options].sort()).toEqual(['right', 'w1', 'w2', 'w3']);
    expect(problem.options['ABCD'.indexOf(problem.goldLetter)]).toBe('right');
  });

  it('is a function of the seed and the id alone', () => {
    expect(shuffleChoices(record, 3)).toEqual(shuffleChoices({ ...record }, 3));
    const golds = new Set(Array.from({ length: 40 }, (_, seed) => shuffleChoices(record, seed).goldLetter));
    expect(golds).toEqual(new Set(['A', 'B', 'C', 'D']));
  });

  it('spreads the gold letter evenly over many problems', () => {
    const counts = { A: 0, B: 0, C: 0, D: 0 } as Record<string, number>;
    for (let index = 0; index < 4000; index++)
      counts[shuffleChoices({ ...record, id: `p${index}` }).goldLetter]! += 1;
    for (const count of Object.values(counts)) expect(Math.abs(count - 1000)).toBeLessThan(120);
  });

  it('refuses a problem with one option', () => {
    expect(() => shuffleChoices({ ...record, incorrect: [] })).toThrow(/rec1: needs 2-26 options/);
  });
});

describe('gradeChoice', () => {
  it('grades the chosen letter against the gold one', () => {
    const problem = shuffleChoices({
      id: 'x',
      question: 'Which?',
      correct: 'yes',
      incorrect: ['no', 'maybe'],
    });
    const gold = problem.goldLetter;
    const wrong = problem.letters.split('').find((letter) => letter !== gold)!;
    expect(gradeChoice(`Answer: ${gold}`, problem)).toEqual({
      correct: true,
      chosen: gold,
      rule: 'answer_phrase',
    });
    expect(gradeChoice(`Answer: ${wrong}`, problem).correct).toBe(false);
    expect(gradeChoice('Answer: yes', problem).chosen).toBe(gold);
    expect(gradeChoice('I cannot tell.', problem)).toEqual({ correct: false, chosen: null, rule: null });
  });

  it('asks for the answer line the extractor reads first', () => {
    const problem = shuffleChoices({
      id: 'x',
      question: 'Which?',
      correct: 'yes',
      incorrect: ['no', 'maybe'],
    });
    expect(formatChoicePrompt(problem)).toMatch(
      /^Which\?\n\nA\) .+\nB\) .+\nC\) .+\n\n.*"Answer: X".*A-C\.$/,
    );
  });
});
