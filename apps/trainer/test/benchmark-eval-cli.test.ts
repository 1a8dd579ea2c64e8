import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BenchmarkSampleRecord } from '../src/bench-eval/results-file.js';
import { runCli } from '../src/index.js';
import { capture } from './support/capture-io.js';

/**
 * taorl eval --bench on the embedded tiny model (untrained) with the real sandbox and grader; no --data-dir: the
 * benchmark files come from @taorl/eval.
 */
function benchArgs(outDir: string, ...extra: string[]): string[] {
  return [
    'eval',
    '--bench',
    'aime24,math500',
    '--limit',
    '2',
    '--out',
    outDir,
    '--set',
    'tool.sandbox={name: local, workers: 2, preload: []}',
    '--set',
    'rollout.maxResponseTokens=24',
    ...extra,
  ];
}

async function inFolder<T>(dir: string, run: () => Promise<T>): Promise<T> {
  const previous = process.cwd();
  process.chdir(dir);
  try {
    return await run();
  } finally {
    process.chdir(previous);
  }
}

const records = (path: string): BenchmarkSampleRecord[] =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => JSON.parse(line) as BenchmarkSampleRecord);

describe('taorl eval --bench (embedded tiny model, real sandbox)', () => {
  it('evaluates, writes the results and reports, resumes to no work, and starts over with --fresh', async () => {
    const outDir = mkdtempSync(join(tmpdir(), 'taorl-bench-cli-'));
    const resultsPath = join(outDir, 'eval', 'results.jsonl');
    const first = capture();
    // Run from a folder outside the repository: the default data folder must not depend on the working directory.
    expect(await inFolder(outDir, () => runCli(benchArgs(outDir, '--k', '2'), first.io))).toBe(0);
    const written = records(resultsPath);
    expect(written).toHaveLength(2 * 2 * 2);
    for (const record of written) {
      expect(record.responseTokens).toBeLessThanOrEqual(24);
      expect(record.sample).toBeLessThan(2);
    }
    // The embedded model's context is 512 tokens: the aime24 prompts (581 and 787 tokens) leave no room and are
    // recorded as empty and truncated, without taking the math500 prompts' room in the same batch.
    expect(first.err.join('')).toContain("2 problem prompt(s) fill the model's context of 512 tokens");
    for (const record of written.filter((r) => r.benchmark === 'aime24'))
      expect(record).toMatchObject({ response: '', responseTokens: 0, truncated: true, correct: false });
    for (const record of written.filter((r) => r.benchmark === 'math500'))
      expect(record.responseTokens).toBeGreaterThan(0);
    const output = first.out.join('');
    expect(output).toMatch(/\| aime24 \| 2 \|/);
    expect(output).toMatch(/\| math500 \| 2 \|/);
    expect(output).toContain('8 samples generated, 8 in');
    for (const name of ['report.json', 'report.md', 'report.html'])
      expect(existsSync(join(outDir, 'eval', name))).toBe(true);

    const again = capture();
    expect(await runCli(benchArgs(outDir, '--k', '2'), again.io)).toBe(0);
    expect(again.out.join('')).toContain('0 samples generated, 8 in');
    expect(records(resultsPath)).toEqual(written);

    const mismatch = capture();
    expect(await runCli(benchArgs(outDir, '--k', '3'), mismatch.io)).toBe(2);
    expect(mismatch.err.join('')).toContain(
      `${resultsPath}:1: these results were written with another configuration (k: 2 in the file, 3 now)`,
    );

    const fresh = capture();
    expect(await runCli(benchArgs(outDir, '--k', '3', '--fresh'), fresh.io)).toBe(0);
    expect(records(resultsPath)).toHaveLength(2 * 2 * 3);
  });

  it('says in which mode it judged livecodebench (--code-judge)', async () => {
    const outDir = mkdtempSync(join(tmpdir(), 'taorl-bench-cli-'));
    mkdirSync(join(outDir, 'data', 'livecodebench'), { recursive: true });
    copyFileSync(
      new URL(
        '../../../packages/eval/test/fixtures/code-and-choice/livecodebench-format.jsonl',
        import.meta.url,
      ),
      join(outDir, 'data', 'livecodebench', 'test6.jsonl'),
    );
    const args = (...extra: string[]) =>
      [...benchArgs(outDir, '--k', '1', '--data-dir', join(outDir, 'data'), ...extra)].map((arg) =>
        arg === 'aime24,math500' ? 'livecodebench' : arg,
      );
    const lcb = capture();
    expect(await runCli(args('--code-judge', 'livecodebench'), lcb.io)).toBe(0);
    expect(lcb.out.join('')).toContain(
      "livecodebench: programs judged in the livecodebench mode (as LiveCodeBench's own runner judges",
    );
    expect(readFileSync(join(outDir, 'eval', 'report.md'), 'utf8')).toContain(
      'livecodebench judged in the livecodebench mode',
    );
  });

  it('rejects unknown benchmarks and stray flags before opening a session, and a missing data folder', async () => {
    const unknown = capture();
    expect(await runCli(['eval', '--bench', 'aime24,gsm8k'], unknown.io)).toBe(2);
    expect(unknown.err.join('')).toContain(
      '--bench: unknown benchmark(s) gsm8k; known: all (the shipped math sets), aime24',
    );
    const stray = capture();
    expect(await runCli(['eval', '--k', '4'], stray.io)).toBe(2);
    expect(stray.err.join('')).toContain('--k need(s) --bench');
    const missing = capture();
    const outDir = mkdtempSync(join(tmpdir(), 'taorl-bench-cli-'));
    const args = ['eval', '--bench', 'aime24', '--data-dir', join(outDir, 'nowhere'), '--out', outDir];
    expect(
      await runCli([...args, '--set', 'tool.sandbox={name: local, workers: 1, preload: []}'], missing.io),
    ).toBe(2);
    expect(missing.err.join('')).toContain(`data folder not found: ${join(outDir, 'nowhere')}`);
  });
});
