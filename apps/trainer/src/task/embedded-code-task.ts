import type { CodeProblem, CodeTest } from '@taorl/eval';
import { deriveSeed, seededRandom } from '../util/seeds.js';

/** One kind of tiny stdin/stdout problem: its statement, and its test cases drawn from a seeded generator. */
interface CodeKind {
  readonly name: string;
  readonly question: string;
  readonly test: (random: () => number) => CodeTest;
}

const int = (random: () => number, low: number, high: number) =>
  low + Math.floor(random() * (high - low + 1));

const kinds: readonly CodeKind[] = [
  {
    name: 'sum',
    question: 'Read two integers a and b from one line and print a + b.',
    test: (random) => {
      const [a, b] = [int(random, -999, 999), int(random, -999, 999)];
      return { input: `${a} ${b}\n`, output: `${a + b}\n` };
    },
  },
  {
    name: 'product',
    question: 'Read two integers a and b from one line and print a * b.',
    test: (random) => {
      const [a, b] = [int(random, -99, 99), int(random, -99, 99)];
      return { input: `${a} ${b}\n`, output: `${a * b}\n` };
    },
  },
  {
    name: 'square',
    question: 'Read an integer n and print n squared.',
    test: (random) => {
      const n = int(random, -9999, 9999);
      return { input: `${n}\n`, output: `${n * n}\n` };
    },
  },
  {
    name: 'maximum',
    question: 'Read a line of integers separated by spaces and print the largest.',
    test: (random) => {
      const values = Array.from({ length: int(random, 1, 8) }, () => int(random, -500, 500));
      return { input: `${values.join(' ')}\n`, output: `${Math.max(...values)}\n` };
    },
  },
  {
    name: 'reverse',
    question: 'Read a word and print it reversed.',
    test: (random) => {
      const word = Array.from({ length: int(random, 1, 10) }, () =>
        String.fromCharCode(97 + int(random, 0, 25)),
      ).join('');
      return { input: `${word}\n`, output: `${[...word].reverse().join('')}\n` };
    },
  },
];

/**
 * The embedded code task: tiny standard-input problems (sum, product, square, maximum, reverse), each with three
 * generated tests; `count` problems cycle through the kinds. The train and test splits draw their tests from
 * different seeds, so they share statements but no test case values.
 */
export function embeddedCodeProblems(seed: number, split: 'train' | 'test', count: number): CodeProblem[] {
  return Array.from({ length: count }, (_, index) => {
    const kind = kinds[index % kinds.length]!;
    const random = seededRandom(deriveSeed(seed, `code-task-${split}`, index));
    const id = `code-${split}-${index}-${kind.name}`;
    const tests = Array.from({ length: 3 }, () => kind.test(random));
    return { id, question: kind.question, starterCode: '', task: { id, kind: 'stdin', tests } };
  });
}
