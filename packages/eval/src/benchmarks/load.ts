import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { BenchmarkFormatError, type BenchmarkProblem } from '@taorl/eval';
import { defaultBenchmarkDir } from '../benchmarkDir';
import { lastBoxed } from '../extract';
import { type JsonlRow, readJsonl } from './jsonl';

type RowReader = (row: JsonlRow, path: string) => Omit<BenchmarkProblem, 'benchmark'>;

/**
 * The six evaluation sets of the TAO-RL paper, each with its gold quirk resolved here so graders see plain
 * answers: AIME24's '025' stays a string (the grader reads it as 25), AMC23's JSON float 27.0 becomes "27",
 * Minerva's gold is the last \boxed of the solution, OlympiadBench's final_answer is a list of $-wrapped answers.
 */
const readers: Record<string, RowReader> = {
  aime24: (row) => ({ id: row.string('id'), problem: row.string('problem'), gold: [row.string('answer')] }),
  aime25: (row) => ({ id: String(row.line), problem: row.string('problem'), gold: [row.string('answer')] }),
  amc23: (row) => ({ id: row.string('id'), problem: row.string('problem'), gold: [row.string('answer')] }),
  math500: (row) => ({
    id: row.string('unique_id'),
    problem: row.string('problem'),
    gold: [row.string('answer')],
  }),
  minerva_math: (row, path) => {
    const gold = lastBoxed(row.string('solution'));
    if (gold === null)
      throw new BenchmarkFormatError(`${path}:${row.line}: field "solution" has no \\boxed answer`);
    return {
      id: row.optionalString('idx') ?? String(row.line),
      problem: row.string('problem'),
      gold: [gold],
    };
  },
  olympiadbench: (row, path) => {
    const answers = row.value.final_answer;
    if (
      !Array.isArray(answers) ||
      answers.length === 0 ||
      !answers.every((item) => typeof item === 'string')
    ) {
      throw new BenchmarkFormatError(
        `${path}:${row.line}: field "final_answer" must be a non-empty list of strings`,
      );
    }
    const context = row.optionalString('context');
    const question = row.string('question');
    return {
      id: row.string('id'),
      problem: context ? `${context}\n${question}` : question,
      gold: answers.map((answer: string) => answer.replace(/\$/g, '').trim()),
    };
  },
};

export const benchmarkNames = Object.keys(readers);

/** Reads `<dir>/<name>/test.jsonl`; dir defaults to the copies this package ships (defaultBenchmarkDir). */
export function loadBenchmark(name: string, dir: string = defaultBenchmarkDir): BenchmarkProblem[] {
  const reader = readers[name];
  if (reader === undefined) {
    throw new BenchmarkFormatError(`unknown benchmark "${name}"; known: ${benchmarkNames.join(', ')}`);
  }
  const path = join(dir, name, 'test.jsonl');
  if (!existsSync(path)) throw new BenchmarkFormatError(`benchmark file not found: ${path}`);
  return readJsonl(path).map((row) => ({ benchmark: name, ...reader(row, path) }));
}
