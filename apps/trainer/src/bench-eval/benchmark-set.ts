import { join } from 'node:path';
import type { BenchmarkProblem } from '@taorl/eval';
import { benchmarkNames, loadBenchmark } from '@taorl/eval/node';

/**
 * The benchmark names a `--bench` list stands for: `all` is every benchmark @taorl/eval knows; an unknown name is
 * an error naming the known ones; duplicates are dropped, the order is kept.
 */
export function resolveBenchmarkNames(list: string): string[] {
  const names = list
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  if (names.length === 0) throw new Error(`no benchmark named; known: all, ${benchmarkNames.join(', ')}`);
  if (names.includes('all')) return [...benchmarkNames];
  const unknown = names.filter((name) => !benchmarkNames.includes(name));
  if (unknown.length > 0)
    throw new Error(`unknown benchmark(s) ${unknown.join(', ')}; known: all, ${benchmarkNames.join(', ')}`);
  return [...new Set(names)];
}

/** The first `limit` problems (all when undefined) of each benchmark, benchmarks in the given order. */
export function loadBenchmarkSet(
  benchmarks: readonly string[],
  dataDir: string,
  limit?: number,
): BenchmarkProblem[] {
  return benchmarks.flatMap((name) => {
    const problems = loadBenchmark(name, dataDir);
    const ids = new Set<string>();
    for (const problem of problems) {
      if (ids.has(problem.id))
        throw new Error(`${join(dataDir, name)}: problem id "${problem.id}" appears twice`);
      ids.add(problem.id);
    }
    return limit === undefined ? problems : problems.slice(0, limit);
  });
}
