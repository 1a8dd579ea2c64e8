import { existsSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { BenchmarkFormatError, type CodeRunner } from '@taorl/eval';
import {
  benchmarkNames,
  defaultBenchmarkDir,
  loadBenchmark,
  loadGpqa,
  loadLiveCodeBench,
} from '@taorl/eval/node';
import type { BenchmarkItem } from './benchmark-items.js';

/** Benchmarks read from a user's copy only (--data-dir): GPQA asks not to be redistributed, LiveCodeBench is large. */
const userDataBenchmarks = ['gpqa_diamond', 'livecodebench'] as const;
/** Every benchmark `--bench` accepts: the shipped math ones, then those a user brings. */
export const evalBenchmarkNames: readonly string[] = [...benchmarkNames, ...userDataBenchmarks];

/**
 * The benchmark names a `--bench` list stands for: `all` is every shipped (math) benchmark; an unknown name is an
 * error naming the known ones; duplicates are dropped, the order is kept.
 */
export function resolveBenchmarkNames(list: string): string[] {
  const names = list
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const known = `known: all (the shipped math sets), ${evalBenchmarkNames.join(', ')}`;
  if (names.length === 0) throw new Error(`no benchmark named; ${known}`);
  const expanded = names.flatMap((name) => (name === 'all' ? benchmarkNames : [name]));
  const unknown = expanded.filter((name) => !evalBenchmarkNames.includes(name));
  if (unknown.length > 0) throw new Error(`unknown benchmark(s) ${unknown.join(', ')}; ${known}`);
  return [...new Set(expanded)];
}

export interface BenchmarkSetOptions {
  /** Only the first `limit` problems of each benchmark. */
  readonly limit?: number;
  /** Decodes LiveCodeBench's private tests (in the sandbox); without it only public tests are judged. */
  readonly runner?: CodeRunner;
  /** LiveCodeBench's contest-date window, days YYYY-MM-DD (the v6 split is a window of the release). */
  readonly codeWindow?: { readonly from?: string; readonly to?: string };
  /** Seed of the multiple-choice options' order. */
  readonly seed: number;
}

export interface BenchmarkSet {
  readonly items: BenchmarkItem[];
  /** Where each benchmark was read from, for the report. */
  readonly sources: ReadonlyMap<string, string>;
}

/**
 * The problems of each benchmark, benchmarks in the given order: `<dataDir>/<name>` when it exists; the copy
 * @taorl/eval ships for the math sets otherwise (a `dataDir` that does not exist is an error). GPQA-Diamond is `gpqa_diamond/gpqa_diamond.csv` (the release's
 * file) or `test.{csv,jsonl,parquet}`; LiveCodeBench is every `*.jsonl`, `*.jsonl.gz` or `*.parquet` in
 * `livecodebench/` or its subfolders (the release files test.jsonl .. test6.jsonl, or a Hugging Face parquet copy
 * such as data/test-00000-of-00001.parquet).
 */
export async function loadBenchmarkSet(
  benchmarks: readonly string[],
  dataDir: string,
  options: BenchmarkSetOptions,
): Promise<BenchmarkSet> {
  if (!existsSync(dataDir)) throw new BenchmarkFormatError(`data folder not found: ${dataDir}`);
  const items: BenchmarkItem[] = [];
  const sources = new Map<string, string>();
  for (const name of benchmarks) {
    const dir = join(dataDir, name);
    const loaded = await loadOne(name, dir, options);
    sources.set(name, loaded.source);
    const ids = new Set<string>();
    for (const item of loaded.items) {
      if (ids.has(item.id))
        throw new BenchmarkFormatError(`${loaded.source}: problem id "${item.id}" appears twice`);
      ids.add(item.id);
    }
    items.push(...(options.limit === undefined ? loaded.items : loaded.items.slice(0, options.limit)));
  }
  return { items, sources };
}

async function loadOne(
  name: string,
  dir: string,
  options: BenchmarkSetOptions,
): Promise<{ items: BenchmarkItem[]; source: string }> {
  if (name === 'gpqa_diamond') {
    const file = ['gpqa_diamond.csv', 'test.csv', 'test.jsonl', 'test.parquet']
      .map((candidate) => join(dir, candidate))
      .find((path) => existsSync(path));
    if (file === undefined)
      throw missingUserData(name, dir, 'gpqa_diamond.csv (from the GPQA release archive)');
    const problems = await loadGpqa(file, { seed: options.seed });
    return {
      source: file,
      items: problems.map((choice) => ({ benchmark: name, id: choice.id, kind: 'choice', choice })),
    };
  }
  if (name === 'livecodebench') {
    const present = existsSync(dir) ? filesUnder(dir) : [];
    const files = present.filter((file) => CODE_FILE.test(file)).map((file) => join(dir, file));
    if (files.length === 0) {
      throw missingUserData(
        name,
        dir,
        "LiveCodeBench's code_generation_lite release files (test.jsonl .. test6.jsonl, .jsonl.gz or .parquet)",
        present.length === 0 ? '' : ` It holds only ${listed(present)}.`,
        'huggingface-cli download livecodebench/code_generation_lite test6.jsonl --repo-type dataset ' +
          `--local-dir ${dir}`,
      );
    }
    const items: BenchmarkItem[] = [];
    for (const file of files) {
      const problems = await loadLiveCodeBench(file, {
        ...(options.runner === undefined ? {} : { runner: options.runner }),
        ...options.codeWindow,
      });
      for (const problem of problems) {
        items.push({
          benchmark: name,
          id: problem.id,
          kind: 'code',
          question: problem.question,
          starterCode: problem.starterCode,
          task: problem.task,
        });
      }
    }
    return { source: dir, items };
  }
  const root = existsSync(dir) ? join(dir, '..') : defaultBenchmarkDir;
  const problems = loadBenchmark(name, root);
  return {
    source: join(root, name, 'test.jsonl'),
    items: problems.map((problem) => ({
      benchmark: name,
      id: problem.id,
      kind: 'math',
      question: problem.problem,
      gold: problem.gold,
    })),
  };
}

/** The files a LiveCodeBench folder may hold its problems in. */
const CODE_FILE = /\.(jsonl|jsonl\.gz|parquet)$/;

/** The files under `dir` (subfolders included, a few levels deep), as sorted paths relative to it. */
function filesUnder(dir: string): string[] {
  return (
    readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      // parentPath from Node 20.12 on, path before it (engines: >= 20.11).
      .map((entry) => relative(dir, join(entry.parentPath ?? entry.path, entry.name)))
      .filter((path) => path.split('/').length <= 4)
      .sort()
  );
}

function listed(paths: readonly string[], most = 8): string {
  const shown = paths.slice(0, most).join(', ');
  return paths.length > most ? `${shown} and ${paths.length - most} more` : shown;
}

function missingUserData(
  name: string,
  dir: string,
  what: string,
  found = '',
  howTo?: string,
): BenchmarkFormatError {
  return new BenchmarkFormatError(
    `${name}: not found in ${dir}; taorl ships no copy of it.${found} Put ${what} there and pass --data-dir ` +
      `(docs/trainer.md, Benchmarks a user brings)${howTo === undefined ? '' : `, e.g.: ${howTo}`}`,
  );
}
