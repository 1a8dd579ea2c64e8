// Grading throughput on MATH500 golds against re-rendered (equivalent) and perturbed (different) predictions,
// single-threaded and with the worker pool. Run from the repository root: pnpm bench packages/eval/bench/grade-throughput.ts
import { availableParallelism } from 'node:os';
import { isEquivalent, normalizeAnswer } from '@taorl/eval';
import { createGraderPool, loadBenchmark } from '@taorl/eval/node';
import { perturbation, rerenderings } from '../test/rerender';

interface Pair {
  readonly pred: string;
  readonly gold: string;
  readonly expected: boolean;
}

const golds = loadBenchmark('math500').map((problem) => problem.gold[0]!);
const pairsOf = (gold: string): Pair[] => [
  ...rerenderings(gold).map((pred) => ({ pred, gold, expected: true })),
  { pred: perturbation(gold), gold, expected: false },
];
const isPlainNumber = (gold: string): boolean => /^-?\d+(\.\d+)?$/.test(gold);
const squeezed = (answer: string): string => normalizeAnswer(answer).text.replace(/\s+/g, '');
const symbolic = golds.filter((gold) => !isPlainNumber(gold)).flatMap(pairsOf);
const classes: Record<string, Pair[]> = {
  'plain numeric': golds.filter(isPlainNumber).flatMap(pairsOf),
  symbolic,
  // The pairs that normalisation alone cannot decide: every one goes through the parser and the comparison.
  'symbolic, parser path only': symbolic.filter((pair) => squeezed(pair.pred) !== squeezed(pair.gold)),
};

/** isEquivalent over the pairs, repeated for at least `seconds`; returns pairs per second and the agreement. */
function singleThreaded(pairs: readonly Pair[], seconds: number): { rate: number; agreement: number } {
  let graded = 0;
  let agreed = 0;
  const start = performance.now();
  while (performance.now() - start < seconds * 1000) {
    for (const pair of pairs) {
      if (isEquivalent(pair.pred, pair.gold) === pair.expected) agreed += 1;
      graded += 1;
    }
  }
  return { rate: graded / ((performance.now() - start) / 1000), agreement: agreed / graded };
}

/** The same pairs through the pool, as boxed responses, for at least `seconds` after a warm-up round. */
async function pooled(pairs: readonly Pair[], size: number, seconds: number): Promise<number> {
  const pool = createGraderPool({ size, batchSize: 64 });
  const tasks = pairs.map((pair) => ({ response: `\\boxed{${pair.pred}}`, gold: pair.gold }));
  // Warm-up: worker start-up and the workers' own JIT compilation are not grading time.
  for (let round = 0; round < 5; round++) await pool.gradeMany(tasks);
  let graded = 0;
  const start = performance.now();
  while (performance.now() - start < seconds * 1000) {
    await pool.gradeMany(tasks);
    graded += tasks.length;
  }
  const rate = graded / ((performance.now() - start) / 1000);
  await pool.close();
  return rate;
}

const poolSize = Math.max(1, availableParallelism() - 1);
console.log(`node ${process.version}, ${availableParallelism()} CPUs, pool of ${poolSize} worker(s)`);
console.log(
  `| class | pairs | single-thread pairs/s | pool (${poolSize}) pairs/s | pool (${poolSize}) / single | pool (2) pairs/s | pool (2) / single | agreement |`,
);
console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
for (const [name, pairs] of Object.entries(classes)) {
  singleThreaded(pairs, 1); // warm-up, as the pool gets
  const single = singleThreaded(pairs, 3);
  const pool = await pooled(pairs, poolSize, 3);
  const poolOfTwo = await pooled(pairs, 2, 3);
  console.log(
    `| ${name} | ${pairs.length} | ${single.rate.toFixed(0)} | ${pool.toFixed(0)} | ${(pool / single.rate).toFixed(2)} | ${poolOfTwo.toFixed(0)} | ${(poolOfTwo / single.rate).toFixed(2)} | ${(100 * single.agreement).toFixed(1)}% |`,
  );
}
