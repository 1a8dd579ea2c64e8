import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultBenchmarkDir, loadBenchmark, loadVerlParquet } from '../src/node';

const dir = defaultBenchmarkDir;

describe('loadVerlParquet', () => {
  it('reads the verl RL format: last user message, ground truth, data source', async () => {
    const problems = await loadVerlParquet(join(dir, 'aime24', 'deepscaler_aime.parquet'));
    expect(problems).toHaveLength(30);
    expect(new Set(problems.map((problem) => problem.benchmark))).toEqual(new Set(['deepscaler']));
    // The same 30 AIME 2024 answers as the JSONL copy, in another order.
    const jsonlGolds = loadBenchmark('aime24', dir).map((problem) => Number(problem.gold[0]));
    const parquetGolds = problems.map((problem) => Number(problem.gold[0]));
    expect([...parquetGolds].sort((a, b) => a - b)).toEqual([...jsonlGolds].sort((a, b) => a - b));
    expect(problems.every((problem) => problem.problem.length > 50)).toBe(true);
  });

  it('matches MATH500 golds by problem across the parquet and JSONL copies', async () => {
    const problems = await loadVerlParquet(join(dir, 'math500', 'simplelr_math_35_test.parquet'));
    expect(problems).toHaveLength(500);
    const jsonlGolds = new Set(loadBenchmark('math500', dir).map((problem) => problem.gold[0]));
    const missing = problems.filter((problem) => !jsonlGolds.has(problem.gold[0]));
    expect(missing).toEqual([]);
  });

  it('names the file when it is not parquet', async () => {
    await expect(loadVerlParquet(join(dir, 'aime24', 'test.jsonl'))).rejects.toThrow(
      /cannot read parquet .*test\.jsonl/,
    );
  });
});
