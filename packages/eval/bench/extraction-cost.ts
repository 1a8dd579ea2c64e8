// The cost of grade() on whole responses (MATH500's 500 worked solutions against their answers): the built package
// (packages/eval/dist, a build of the base commit when it has not been rebuilt since) against the source, both arms
// interleaved in the same run, 20 rounds, medians and their ratio. Run from the repository root:
//   pnpm bench packages/eval/bench/extraction-cost.ts
import { readFileSync } from 'node:fs';
import * as built from '../dist/index.js';
import * as source from '../src/index';

const rows = readFileSync(new URL('../data/benchmarks/math500/test.jsonl', import.meta.url), 'utf8')
  .trim()
  .split('\n')
  .map((line) => JSON.parse(line) as { solution: string; answer: string });
type Grader = Pick<typeof source, 'grade'>;
const timeOf = (grader: Grader): number => {
  const start = performance.now();
  for (const row of rows) grader.grade(row.solution, row.answer);
  return performance.now() - start;
};
const times: Record<'built' | 'source', number[]> = { built: [], source: [] };
for (let round = 0; round < 20; round++) {
  times.built.push(timeOf(built));
  times.source.push(timeOf(source));
}
const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[values.length >> 1]!;
const [before, after] = [median(times.built), median(times.source)];
const correct = (grader: Grader): number =>
  rows.filter((row) => grader.grade(row.solution, row.answer).correct).length;
console.log(
  `grade() over ${rows.length} MATH500 solutions: dist ${before.toFixed(1)} ms, source ${after.toFixed(1)} ms`,
);
console.log(
  `ratio source / dist ${(after / before).toFixed(3)}; graded correct: dist ${correct(built)}, source ${correct(source)}`,
);
