import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type BenchmarkProblem, compareAnswers, grade } from '../src/index';
import { parseLatex } from '../src/latex/parse';
import { benchmarkNames, defaultBenchmarkDir, loadBenchmark } from '../src/node';
import { normalizeAnswer } from '../src/normalize';
import { perturbation, rerenderings } from './rerender';

const problems = new Map<string, BenchmarkProblem[]>(
  benchmarkNames.map((name) => [name, loadBenchmark(name)]),
);
const allGolds = [...problems.values()].flatMap((list) => list.flatMap((problem) => problem.gold));

/** Golds that are words or code rather than mathematics: graded by their words. */
const textGolds = [
  '\\text{Evelyn}',
  '\\text{east}',
  '\\text{even}',
  '\\text{(C)}',
  '\\text{(E)}',
  '\\text{(B)}',
  '\\text{ellipse}',
  '\\text{Navin}',
  'np.arcsin(10/13)',
  'f(x)=a x+b, where b is an arbitrary integer, and a is an arbitrary positive integer with \\mho(a)=0',
];

/**
 * Golds whose re-rendering cannot be recognised, with the reason: Python code compared as words (its digits are
 * words too), and a symbol multiplied by an interval, which has no value to compare.
 */
const unrecognisedRerenderings = new Set(['np.arcsin(10/13)', 't(0,4]']);

describe('benchmark loaders', () => {
  it('default to the data/benchmarks folder of this package, whatever the working directory', () => {
    const packageRoot = fileURLToPath(new URL('..', import.meta.url));
    expect(defaultBenchmarkDir).toBe(join(packageRoot, 'data', 'benchmarks'));
  });

  it('read every row of the six benchmarks', () => {
    const counts = Object.fromEntries([...problems].map(([name, list]) => [name, list.length]));
    expect(counts).toEqual({
      aime24: 30,
      aime25: 30,
      amc23: 40,
      math500: 500,
      minerva_math: 272,
      olympiadbench: 675,
    });
  });

  it('resolve each gold quirk', () => {
    const aime24 = problems.get('aime24')!;
    expect(aime24.filter((problem) => /^0\d/.test(problem.gold[0]!)).length).toBe(7);
    // AMC23 stores 27.0 as a JSON number; the loader gives its shortest decimal string.
    expect(problems.get('amc23')![0]!.gold).toEqual(['27']);
    expect(problems.get('minerva_math')!.every((problem) => problem.gold[0]!.length > 0)).toBe(true);
    const olympiad = problems.get('olympiadbench')!;
    expect(olympiad.find((problem) => problem.gold[0] === '69,84')).toBeDefined();
    expect(olympiad.every((problem) => problem.gold.every((gold) => !gold.includes('$')))).toBe(true);
  });

  it('name the file, line and field of malformed rows, and unknown benchmarks', () => {
    const root = mkdtempSync(join(tmpdir(), 'taorl-eval-'));
    mkdirSync(join(root, 'aime24'));
    writeFileSync(
      join(root, 'aime24', 'test.jsonl'),
      '{"id": 1, "problem": "p", "answer": "3"}\n{"id": 2, "problem": "q"}\n',
    );
    expect(() => loadBenchmark('aime24', root)).toThrow(/aime24[/\\]test\.jsonl:2: missing field "answer"/);
    writeFileSync(join(root, 'aime24', 'test.jsonl'), 'not json\n');
    expect(() => loadBenchmark('aime24', root)).toThrow(/test\.jsonl:1: not JSON/);
    expect(() => loadBenchmark('gsm9k', root)).toThrow(/unknown benchmark "gsm9k"; known: aime24/);
    expect(() => loadBenchmark('math500', root)).toThrow(/benchmark file not found/);
  });
});

describe('every benchmark gold', () => {
  it('parses as mathematics, except the listed text answers', () => {
    const notMath = allGolds.filter((gold) => {
      try {
        return parseLatex(normalizeAnswer(gold).text, { maxDepth: 64 }).kind === 'text';
      } catch {
        return true;
      }
    });
    expect(notMath).toEqual(textGolds);
  });

  it(`is equivalent to itself and to its re-rendered forms (${allGolds.length} golds)`, () => {
    const rejected: string[] = [];
    let pairs = 0;
    for (const gold of allGolds) {
      if (!compareAnswers(gold, gold).equivalent) rejected.push(`self: ${gold}`);
      if (unrecognisedRerenderings.has(gold)) continue;
      for (const form of rerenderings(gold)) {
        pairs += 1;
        const verdict = compareAnswers(form, gold);
        if (!verdict.equivalent) rejected.push(`${form} vs ${gold}: ${verdict.reason}`);
      }
    }
    expect(rejected).toEqual([]);
    expect(pairs).toBeGreaterThan(2000);
  });

  it('re-renderings listed as unrecognised really are rejected (so the exception list stays honest)', () => {
    for (const gold of unrecognisedRerenderings) {
      expect(rerenderings(gold).some((form) => !compareAnswers(form, gold).equivalent)).toBe(true);
    }
  });

  it('is not equivalent to a perturbed answer', () => {
    const accepted = allGolds
      .map((gold) => ({ gold, perturbed: perturbation(gold) }))
      .filter(({ gold, perturbed }) => compareAnswers(perturbed, gold).equivalent);
    expect(accepted).toEqual([]);
  });
});

describe('reference solutions', () => {
  it('MATH500: every worked solution, graded as a response, earns its own answer (500 / 500)', () => {
    const rows = readFileSync(join(defaultBenchmarkDir, 'math500', 'test.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { solution: string; answer: string });
    const missed = rows
      .map((row) => ({ answer: row.answer, result: grade(row.solution, row.answer) }))
      .filter(({ result }) => !result.correct);
    expect(missed).toEqual([]);
    expect(rows).toHaveLength(500);
  });
});
