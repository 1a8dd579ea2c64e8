import { BenchmarkFormatError, type CodeProblem, type CodeRunner, type CodeTest } from '@taorl/eval';
// A string, not a class: bundling it into this entry too costs nothing and exposes no internal export.
import { DECODE_PRIVATE_TESTS_PY } from '../code/python-sources';
import { checkFunctionalTests } from './functional-tests';
import { readTableRows, stringField, type TableRow } from './table-rows';

export interface LiveCodeBenchOptions {
  /**
   * The sandbox that decodes the private tests (they are pickled in the release, and unpickling runs code, so it
   * never happens in this process). Without one, only the public tests are read.
   */
  readonly runner?: CodeRunner;
  /** Keep problems whose contest_date is on or after this day (YYYY-MM-DD), as LiveCodeBench's --start_date. */
  readonly from?: string;
  /** Keep problems whose contest_date is on or before this day's midnight, as LiveCodeBench's --end_date. */
  readonly to?: string;
}

/** A LiveCodeBench code-generation problem: the statement, the starter code, and its tests as a judge task. */
export interface LiveCodeBenchProblem extends CodeProblem {
  readonly title: string;
  readonly platform: string;
  readonly difficulty: string;
  readonly contestDate: string;
  /** How many of the task's tests are the public ones (they come first). */
  readonly publicTests: number;
}

/**
 * Reads LiveCodeBench's code_generation(_lite) release (a test*.jsonl file, or a .parquet copy with the same
 * columns), keeps the problems in the [from, to] window of contest dates (the v6 split is a release file and a
 * window), and returns each with its public then private tests. Functional problems (LeetCode) call
 * metadata.func_name of `class Solution`; the others read standard input.
 */
export async function loadLiveCodeBench(
  path: string,
  options: LiveCodeBenchOptions = {},
): Promise<LiveCodeBenchProblem[]> {
  const from = dayOf(options.from, 'from');
  const to = dayOf(options.to, 'to');
  const problems: LiveCodeBenchProblem[] = [];
  for (const row of await readTableRows(path)) {
    const contestDate = stringField(row, 'contest_date');
    const date = Date.parse(contestDate.endsWith('Z') ? contestDate : `${contestDate}Z`);
    if (Number.isNaN(date))
      throw new BenchmarkFormatError(`${row.where}: field "contest_date" is not a date`);
    if ((from !== undefined && date < from) || (to !== undefined && date > to)) continue;
    problems.push(await problemOf(row, contestDate, options.runner));
  }
  return problems;
}

function dayOf(day: string | undefined, field: string): number | undefined {
  if (day === undefined) return undefined;
  const time = /^\d{4}-\d{2}-\d{2}$/.test(day) ? Date.parse(`${day}T00:00:00Z`) : Number.NaN;
  if (Number.isNaN(time))
    throw new RangeError(`loadLiveCodeBench: ${field} must be a day YYYY-MM-DD, got "${day}"`);
  return time;
}

async function problemOf(
  row: TableRow,
  contestDate: string,
  runner: CodeRunner | undefined,
): Promise<LiveCodeBenchProblem> {
  const id = stringField(row, 'question_id');
  const where = `${row.where} (question ${id})`;
  const publicTests = testsOf(
    parseJson(stringField(row, 'public_test_cases'), where, 'public_test_cases'),
    where,
    'public_test_cases',
  );
  const privateTests =
    runner === undefined
      ? []
      : testsOf(
          await decodePrivateTests(runner, stringField(row, 'private_test_cases'), where),
          where,
          'private_test_cases',
        );
  const tests = [...publicTests, ...privateTests];
  if (tests.length === 0) throw new BenchmarkFormatError(`${where}: has no test cases`);
  const metadata = parseJson(stringField(row, 'metadata'), where, 'metadata') as {
    func_name?: unknown;
  } | null;
  const method = metadata?.func_name;
  const kinds = new Set(tests.map((test) => test.testtype));
  if (kinds.size !== 1) throw new BenchmarkFormatError(`${where}: mixes test types ${[...kinds].join(', ')}`);
  const functional = kinds.has('functional');
  if (functional && typeof method !== 'string') {
    throw new BenchmarkFormatError(`${where}: functional tests need metadata.func_name`);
  }
  if (functional) {
    checkFunctionalTests(publicTests, where, (index) => `public_test_cases[${index}]`);
    checkFunctionalTests(privateTests, where, (index) => `private_test_cases[${index}]`);
  }
  const plain = tests.map(({ input, output }): CodeTest => ({ input, output }));
  return {
    id,
    title: stringField(row, 'question_title'),
    question: stringField(row, 'question_content'),
    starterCode: typeof row.value.starter_code === 'string' ? row.value.starter_code : '',
    platform: stringField(row, 'platform'),
    difficulty: stringField(row, 'difficulty'),
    contestDate,
    task: functional
      ? { id, kind: 'functional', method: method as string, tests: plain }
      : { id, kind: 'stdin', tests: plain },
    publicTests: publicTests.length,
  };
}

function parseJson(text: string, where: string, field: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new BenchmarkFormatError(`${where}: field "${field}" is not JSON (${(error as Error).message})`);
  }
}

interface LcbTest {
  readonly input: string;
  readonly output: string;
  readonly testtype: string;
}

function testsOf(value: unknown, where: string, field: string): LcbTest[] {
  if (!Array.isArray(value))
    throw new BenchmarkFormatError(`${where}: field "${field}" must be a list of tests`);
  return value.map((test, index) => {
    const { input, output, testtype } = (test ?? {}) as Record<string, unknown>;
    if (typeof input !== 'string' || typeof output !== 'string') {
      throw new BenchmarkFormatError(`${where}: ${field}[${index}] needs string "input" and "output"`);
    }
    if (testtype !== 'stdin' && testtype !== 'functional') {
      throw new BenchmarkFormatError(`${where}: ${field}[${index}].testtype must be "stdin" or "functional"`);
    }
    return { input, output, testtype };
  });
}

async function decodePrivateTests(runner: CodeRunner, encoded: string, where: string): Promise<unknown> {
  const result = await runner.run({
    code: DECODE_PRIVATE_TESTS_PY,
    files: [{ path: 'private_tests.txt', content: encoded }],
    fetchFiles: ['private_tests.json'],
    timeoutMs: 60_000,
  });
  const file = result.files?.find((entry) => entry.path === 'private_tests.json');
  if (result.status !== 'ok' || file === undefined) {
    const lastLine = result.stderr.trim().split('\n').at(-1)?.slice(0, 300) ?? '';
    const detail = result.status === 'ok' ? 'wrote no private_tests.json' : `${result.status}: ${lastLine}`;
    throw new BenchmarkFormatError(
      `${where}: cannot decode field "private_test_cases" in the sandbox (${detail})`,
    );
  }
  return parseJson(new TextDecoder().decode(file.content), where, 'private_test_cases');
}
