import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmSync,
  truncateSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';
import type { CodeJudgeMode, GradeReason } from '@taorl/eval';
import { writeFileAtomic } from '../util/atomic-write.js';
import { writingTo } from '../util/write-errors.js';

/** Everything that decides what a sample means; a results file holds samples of one configuration only. */
export interface BenchmarkEvalConfig {
  /** Which policy answered (a model path, an endpoint and model name, ...). */
  model: string;
  benchmarks: string[];
  /** Samples per problem. */
  k: number;
  /** First n problems of each benchmark; null = all. */
  limit: number | null;
  toolFormat: string;
  systemPrompt: string;
  sampling: { temperature: number; topP: number; topK: number };
  maxTurns: number;
  maxResponseTokens: number;
  seed: number;
  /** How livecodebench's programs were judged; present when the benchmarks include livecodebench. */
  codeJudgeMode?: CodeJudgeMode;
}

/** One finished, graded sample: one line of the results file. */
export interface BenchmarkSampleRecord {
  benchmark: string;
  problemId: string;
  /** 0..k-1. */
  sample: number;
  correct: boolean;
  /** The answer extracted from the final assistant segment, or null. */
  extracted: string | null;
  gradeReason: GradeReason;
  /** Response tokens, policy and tool output together (Len@K). */
  responseTokens: number;
  toolCalls: number;
  /** Tool calls whose status was not ok. */
  toolFailures: number;
  /** Non-blank lines of code over all tool calls. */
  codeLines: number;
  /** The response hit the length budget (rollout.maxResponseTokens or the model's context) before it ended. */
  truncated: boolean;
  /** The whole response: assistant text, code and tool output. */
  response: string;
}

/** A results file that cannot be used: malformed, from another configuration, or naming unknown problems. */
export class BenchmarkResultsError extends Error {
  override name = 'BenchmarkResultsError';
}

const FORMAT = 'taorl-bench-eval/1';

export const sampleKey = (benchmark: string, problemId: string, sample: number): string =>
  JSON.stringify([benchmark, problemId, sample]);

type Check = [test: (value: unknown) => boolean, expected: string];
const isCount: Check = [(v) => Number.isInteger(v) && (v as number) >= 0, 'a non-negative integer'];
const isString: Check = [(v) => typeof v === 'string', 'a string'];
const isBoolean: Check = [(v) => typeof v === 'boolean', 'a boolean'];
const recordFields: Record<keyof BenchmarkSampleRecord, Check> = {
  benchmark: isString,
  problemId: isString,
  sample: isCount,
  correct: isBoolean,
  extracted: [(v) => v === null || typeof v === 'string', 'a string or null'],
  gradeReason: isString,
  responseTokens: isCount,
  toolCalls: isCount,
  toolFailures: isCount,
  codeLines: isCount,
  truncated: isBoolean,
  response: isString,
};

export interface ParsedResults {
  config: BenchmarkEvalConfig;
  /** Each record with its line number in the file. */
  records: { record: BenchmarkSampleRecord; line: number }[];
  /** Bytes up to the end of the last complete line. */
  completeBytes: number;
  /** Line number of an unterminated last line (a write cut short by a crash), or null. */
  partialLine: number | null;
}

/**
 * Parses a results file: a header line with the configuration, then one sample per line. Every complete line must
 * be valid (an error names file:line and the field); an unterminated last line is reported, not parsed, because a
 * crash mid-write leaves exactly that. Returns null for a missing or empty file.
 */
export function readBenchmarkResults(path: string): ParsedResults | null {
  if (!existsSync(path)) return null;
  const buffer = readFileSync(path);
  const completeBytes = buffer.lastIndexOf(0x0a) + 1;
  const lines = buffer.subarray(0, completeBytes).toString('utf8').split('\n').slice(0, -1);
  const partialLine = completeBytes < buffer.length ? lines.length + 1 : null;
  if (lines.length === 0) return null;
  const config = parseHeader(path, lines[0]!);
  const records = lines.slice(1).map((text, index) => {
    const line = index + 2;
    return { record: parseRecord(`${path}:${line}`, text), line };
  });
  return { config, records, completeBytes, partialLine };
}

function parseJsonObject(where: string, text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new BenchmarkResultsError(`${where}: malformed line (${(error as Error).message})`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new BenchmarkResultsError(`${where}: expected a JSON object`);
  return value as Record<string, unknown>;
}

function parseHeader(path: string, text: string): BenchmarkEvalConfig {
  const header = parseJsonObject(`${path}:1`, text);
  if (header.format !== FORMAT || header.config === null || typeof header.config !== 'object') {
    throw new BenchmarkResultsError(
      `${path}:1: not a benchmark-eval results file (the first line must be a "${FORMAT}" header)`,
    );
  }
  return header.config as BenchmarkEvalConfig;
}

function parseRecord(where: string, text: string): BenchmarkSampleRecord {
  const value = parseJsonObject(where, text);
  for (const [field, [test, expected]] of Object.entries(recordFields)) {
    if (!test(value[field]))
      throw new BenchmarkResultsError(
        `${where}: field "${field}" must be ${expected}, got ${JSON.stringify(value[field])}`,
      );
  }
  return value as unknown as BenchmarkSampleRecord;
}

/** JSON with sorted keys, so two configs compare equal whatever order their fields were written in. */
function canonical(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'undefined';
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1));
  return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonical(item)}`).join(',')}}`;
}

function configDifferences(stored: BenchmarkEvalConfig, current: BenchmarkEvalConfig): string[] {
  const field = (config: BenchmarkEvalConfig, key: string) =>
    canonical(config[key as keyof BenchmarkEvalConfig]);
  const keys = new Set([...Object.keys(stored), ...Object.keys(current)]);
  return [...keys]
    .filter((key) => field(stored, key) !== field(current, key))
    .map((key) => `${key}: ${field(stored, key)} in the file, ${field(current, key)} now`);
}

/** An open results file: the samples already in it, and an append that is durable when it returns. */
export interface BenchmarkResultsStore {
  readonly path: string;
  readonly records: readonly BenchmarkSampleRecord[];
  /** Appends the samples as lines and fsyncs: a crash after this returns loses none of them. */
  append(records: readonly BenchmarkSampleRecord[]): void;
  close(): void;
}

export interface OpenResultsOptions {
  /** Discard an existing file and start over. */
  fresh?: boolean;
  /** The (benchmark, problem id) pairs of this run, to reject samples of problems it does not hold. */
  problems: ReadonlyMap<string, ReadonlySet<string>>;
  warn: (message: string) => void;
}

/**
 * Opens (resumes) or creates a results file for `config`. An existing file must have been written with the same
 * configuration, and every sample in it must be a distinct (benchmark, problem, sample < k) of this run; an
 * unterminated last line is cut off with a warning (its sample is generated again).
 */
export function openBenchmarkResults(
  path: string,
  config: BenchmarkEvalConfig,
  options: OpenResultsOptions,
): BenchmarkResultsStore {
  if (options.fresh === true) rmSync(path, { force: true });
  const parsed = readBenchmarkResults(path);
  if (parsed === null) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileAtomic(path, `${JSON.stringify({ format: FORMAT, config })}\n`);
  } else {
    const differences = configDifferences(parsed.config, config);
    if (differences.length > 0) {
      throw new BenchmarkResultsError(
        `${path}:1: these results were written with another configuration (${differences.join('; ')}); ` +
          'start over with --fresh (option fresh) or write to another folder',
      );
    }
    checkRecords(path, parsed.records, config, options.problems);
    if (parsed.partialLine !== null) {
      truncateSync(path, parsed.completeBytes);
      options.warn(
        `${path}:${parsed.partialLine}: dropped an incomplete last line (a write cut short); its sample runs again`,
      );
    }
  }
  const records = parsed?.records.map(({ record }) => record) ?? [];
  const fd = openSync(path, 'a');
  return {
    path,
    records,
    append(batch) {
      const bytes = Buffer.from(batch.map((record) => `${JSON.stringify(record)}\n`).join(''), 'utf8');
      writingTo(path, () => {
        let offset = 0;
        while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
        fsyncSync(fd);
      });
      records.push(...batch);
    },
    close: () => closeSync(fd),
  };
}

function checkRecords(
  path: string,
  records: ParsedResults['records'],
  config: BenchmarkEvalConfig,
  problems: ReadonlyMap<string, ReadonlySet<string>>,
): void {
  const seen = new Map<string, number>();
  for (const { record, line } of records) {
    const where = `${path}:${line}`;
    if (problems.get(record.benchmark)?.has(record.problemId) !== true)
      throw new BenchmarkResultsError(
        `${where}: problem "${record.problemId}" of "${record.benchmark}" is not among this run's problems`,
      );
    if (record.sample >= config.k)
      throw new BenchmarkResultsError(`${where}: sample ${record.sample} is not below k = ${config.k}`);
    const key = sampleKey(record.benchmark, record.problemId, record.sample);
    const first = seen.get(key);
    if (first !== undefined)
      throw new BenchmarkResultsError(`${where}: the same sample as line ${first} (${key})`);
    seen.set(key, line);
  }
}
