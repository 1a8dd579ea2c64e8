import { describe, expect, it } from 'vitest';
import { compareAnswers, grade } from '../src/index';

// Each of these finishes in milliseconds with a refusal instead of hanging or exhausting memory.
describe('bounded comparisons', () => {
  it.each([
    ['a tower 10^{10^{10}}', '10^{10^{10}}', '10^{10^{10}}+1'],
    ['a tower of six 2s', '2^{2^{2^{2^{2^{2}}}}}', '3'],
    ['9^{9^{9}}', '9^{9^{9}}', '9^{9^{9}}+0'],
    ['e^{e^{e^{e^{10}}}}', 'e^{e^{e^{e^{10}}}}', '1'],
    ['100000!', '100000!', '5'],
    ['1.5e999', '1.5e999', '1'],
    ['1500 nested parentheses', `${'('.repeat(1500)}1${')'.repeat(1500)}`, '1'],
    ['300 nested square roots', `${'\\sqrt{'.repeat(300)}2${'}'.repeat(300)}`, '2'],
    ['500 nested braces', `${'{'.repeat(500)}1${'}'.repeat(500)}`, '1'],
    ['a 1999-digit integer', '1'.repeat(1999), '5'],
    ['a 3000-character answer', 'x'.repeat(3000), 'x'],
  ])('refuses %s as too large', (_, pred, gold) => {
    expect(compareAnswers(pred, gold)).toEqual({ equivalent: false, reason: 'too_large' });
  });

  it('stops at the time budget with reason timeout', () => {
    // A zero budget trips the deadline at its first clock reading (every 256 steps) of a long probe.
    const long = Array.from({ length: 150 }, (_, index) => `x_{${index}}`).join('+');
    expect(compareAnswers(long, long.replace('x_{0}', 'x_{0}+0'), { limits: { timeBudgetMs: 0 } })).toEqual({
      equivalent: false,
      reason: 'timeout',
    });
  });

  it('extracts from megabyte responses without quadratic scans', () => {
    expect(grade(`${'a'.repeat(1_000_000)}\\boxed{3}`, '3').correct).toBe(true);
    expect(grade(`\\boxed{1}${' '.repeat(1_000_000)}x\\boxed{2}`, '2').correct).toBe(true);
    expect(grade(`Answer: 5${' '.repeat(1_000_000)}x`, '5').reason).toBe('too_large');
    expect(grade(`The final answer is ${'x'.repeat(1_000_000)}`, '2').reason).toBe('too_large');
    expect(grade(`${'$'.repeat(100_000)}\\boxed{${'{'.repeat(100_000)}`, '2').reason).toBe('no_answer');
  });

  it('reads megabyte answer sentences, math-span runs and worked-solution golds without quadratic scans', () => {
    // The paths added for issue 17: stated values, joined math spans, the stated number after the last span, and
    // gold extraction. Each is one pass over the text; a quadratic scan of a megabyte would not finish.
    expect(grade(`Final Answer: The final answer is ${'$1$ and '.repeat(100_000)}`, '1').reason).toBe(
      'too_large',
    );
    expect(grade(`So it ${'is 1, '.repeat(200_000)}done.`, '1').reason).toBe('equivalent');
    expect(grade(`Answer:${' '.repeat(1_000_000)}is 5`, '5').reason).toBe('equivalent');
    expect(grade(`${' '.repeat(1_000_000)}`, '5').reason).toBe('no_answer');
    expect(grade('\\boxed{1}', `${'word '.repeat(200_000)}so $1$.`).correct).toBe(true);
  });

  it('reads megabyte statements, rejections, hedges and option lists without quadratic scans (issue 45)', () => {
    expect(grade(`The answer is ${'$1$, not '.repeat(100_000)}$2$`, '1').correct).toBe(true);
    expect(grade(`So ${'not $1$ '.repeat(100_000)}`, '1').reason).toBe('no_answer');
    expect(grade(`Answer: 5${'; 1'.repeat(300_000)}`, '5').reason).toBe('too_large');
    expect(grade(`Answer: 5 ${'or '.repeat(300_000)}`, '5').correct).toBe(false);
    expect(grade(`The answer is ${'A, '.repeat(300_000)}B`, 'A').correct).toBe(false);
    expect(grade(`(A)${'\nB)'.repeat(300_000)}`, 'A').correct).toBe(false);
    expect(grade(`Answer: A${' '.repeat(1_000_000)}x`, 'A').correct).toBe(false);
    expect(grade(`The answer is 5${' '.repeat(1_000_000)}or maybe 7`, '5').reason).toBe('no_answer');
  });
});
