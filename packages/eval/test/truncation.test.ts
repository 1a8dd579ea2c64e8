import { afterAll, describe, expect, it } from 'vitest';
import { extractAnswer } from '../src/index';
import { createGraderPool, type GradeTask } from '../src/node';
import { caseClasses } from './cases';

// Responses cut off anywhere (the token budget ends a rollout mid-box) must get a verdict. These run through the
// grader pool so that a regression (an endless loop) fails the test by its per-call time limit instead of hanging
// the suite: a synchronous loop in the test's own thread could not be interrupted.
const pool = createGraderPool({ size: 1, taskTimeoutMs: 5_000, batchSize: 64 });
afterAll(() => pool.close());

/** A linear congruential generator: the same cuts on every run. */
function generator(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

const golds = Object.values(caseClasses).flatMap((cases) => cases.map(([, gold]) => gold));
const responseShapes = [
  (gold: string) =>
    `<|im_start|>assistant\nLet me compute.\n\`\`\`python\nprint(1)\n\`\`\`\n\`\`\`output\n1\n\`\`\`\nSo the answer is \\boxed{${gold}}.<|im_end|>`,
  (gold: string) =>
    `We have $x = 2$, hence \\boxed{\\boxed{${gold}}} and \\fbox{${gold}}. The final answer is $${gold}$.`,
  (gold: string) => `Answer: ${gold}\n\\boxed{1}, \\boxed{${gold}} and \\boxed{{${gold}}}`,
  // The box opens the final text: the position an endless backwards search once got stuck at.
  (gold: string) => `\\boxed{${gold}}`,
  (gold: string) => `\`\`\`output\n3\n\`\`\`\\fbox{\\boxed{${gold}}}`,
  (gold: string) => `The final answer is\\boxed{${gold}}. I hope it is correct.`,
];

describe('truncated responses', () => {
  it('an incomplete \\boxed or \\fbox is no answer, and an earlier complete one still counts', () => {
    for (const text of [
      '\\boxed{12',
      '\\boxed{12<|im_end|>',
      '\\boxed',
      '\\fbox{',
      '\\boxed{\\boxed{\\fbox{1',
    ]) {
      expect(extractAnswer(text), text).toBeNull();
    }
    expect(extractAnswer('\\boxed{7} so far; finally \\boxed{12')).toBe('7');
    expect(extractAnswer('\\boxed{\\boxed{3}}')).toBe('3');
    expect(extractAnswer('\\boxed{1}\\boxed{2}\\boxed{3')).toBe('1, 2');
  });

  it('every prefix cut of real-shaped responses returns within the per-call limit', async () => {
    const random = generator(11);
    const tasks: GradeTask[] = [];
    for (let index = 0; index < 600; index++) {
      const gold = golds[Math.floor(random() * golds.length)]!;
      const shape = responseShapes[index % responseShapes.length]!;
      const response = shape(gold);
      const cut = response.slice(0, Math.floor(random() * (response.length + 1)));
      tasks.push({ response: index % 2 === 0 ? cut : `${cut}<|im_end|>`, gold });
    }
    const results = await pool.gradeMany(tasks);
    expect(results.filter((result) => result.reason === 'timeout')).toEqual([]);
    expect(results.some((result) => result.correct)).toBe(true);
  });

  it('megabytes of adjacent, nested or unclosed boxes return within the per-call limit', async () => {
    const many = (piece: string) => piece.repeat(Math.ceil(1_000_000 / piece.length));
    const tasks: GradeTask[] = [
      { response: many('\\boxed{1}'), gold: '1' },
      { response: many('\\boxed{'), gold: '1' },
      { response: many('\\fbox{\\boxed{2}'), gold: '2' },
      { response: `${many('\\boxed{1}, ')}\\boxed{12`, gold: '1' },
      { response: many('{'), gold: '1' },
    ];
    const results = await pool.gradeMany(tasks);
    expect(results.map((result) => result.reason)).not.toContain('timeout');
    expect(results[1]).toMatchObject({ extracted: null, reason: 'no_answer' });
    expect(results[2]!.extracted).toBe('2');
  });
});
