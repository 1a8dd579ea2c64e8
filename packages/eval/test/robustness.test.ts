import { describe, expect, it } from 'vitest';
import { compareAnswers, grade } from '../src/index';
import { benchmarkNames, loadBenchmark } from '../src/node';

const golds = benchmarkNames.flatMap((name) => loadBenchmark(name).flatMap((problem) => problem.gold));
const pieces = [
  '\\frac',
  '{',
  '}',
  '(',
  ')',
  '[',
  ']',
  '\\{',
  '\\}',
  ',',
  '^',
  '_',
  '\\sqrt',
  '-',
  '+',
  '=',
  '<',
  '\\le',
  'x',
  '2',
  '0',
  '.',
  '\\pi',
  'e',
  'i',
  '!',
  '|',
  '\\left',
  '\\right',
  '\\begin{pmatrix}',
  '\\end{pmatrix}',
  '&',
  '\\\\',
  '\\text{',
  '\\cup',
  '\\pm',
  '\\infty',
  '%',
  '\\$',
  '\\sin',
  '\\log_',
  ' ',
  '\\cdot',
  '/',
  '\\overline{',
  '°',
  '\\boxed{',
  '$',
  '\\in',
  "'",
];

/** A linear congruential generator: the same malformed inputs on every run. */
function generator(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

describe('malformed model output', () => {
  it('never throws: 3,000 random token soups and corrupted golds all get a verdict with a reason', () => {
    const random = generator(7);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    const reasons = new Set<string>();
    for (let iteration = 0; iteration < 3_000; iteration++) {
      let pred = '';
      if (random() < 0.5) {
        for (let length = 1 + Math.floor(random() * 20); length > 0; length--) pred += pick(pieces);
      } else {
        const gold = pick(golds);
        const cut = Math.floor(random() * gold.length);
        pred = gold.slice(0, cut) + pick(pieces) + gold.slice(cut + (random() < 0.5 ? 1 : 0));
      }
      const gold = pick(golds);
      reasons.add(compareAnswers(pred, gold).reason);
      reasons.add(grade(`so \\boxed{${pred}}`, gold).reason);
    }
    const known = ['equivalent', 'no_answer', 'not_equivalent', 'timeout', 'too_large', 'unparsable'];
    expect([...reasons].filter((reason) => !known.includes(reason))).toEqual([]);
    expect(reasons).toContain('equivalent');
    expect(reasons).toContain('unparsable');
  });
});
