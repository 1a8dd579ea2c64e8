import type { CodeRunner, CodeTask, TestVerdict } from './judge';
import { LIVECODEBENCH_JUDGE } from './judge-programs';
import { failedRun } from './run-status';

/** How a judgement ended: the verdict, the first test that did not pass (or the count), and why. */
export interface JudgeOutcome {
  readonly verdict: TestVerdict;
  readonly test: number;
  readonly message?: string;
}

/** A test's time limit and a run's memory (the sandbox's default when left out). */
export interface JudgeLimits {
  readonly timeLimitMs: number;
  readonly memoryMb?: number;
}

const TEST_VERDICTS: ReadonlySet<string> = new Set(['passed', 'wrong_answer', 'time_limit', 'runtime_error']);

/**
 * Judges a program as LiveCodeBench's runner does (python/livecodebench_judge.py says how and which verdicts that
 * changes): one sandbox run for all the tests, the program in the judge's own process, `timeLimitMs` a test, and
 * the whole run bounded by the runner's own overall limit, (timeout + 1 s) per test + 5 s. A run that ends without
 * the judge's verdict (the overall limit, memory, a crash) fails the program at its first test, as the runner
 * counts every test failed then.
 */
export async function judgeLikeLiveCodeBench(
  runner: CodeRunner,
  program: string,
  task: CodeTask,
  limits: JudgeLimits,
): Promise<JudgeOutcome> {
  const tests = {
    kind: task.kind,
    method: task.kind === 'functional' ? task.method : null,
    inputs: task.tests.map((test) => test.input),
    outputs: task.tests.map((test) => test.output),
    timeout_s: limits.timeLimitMs / 1000,
  };
  const result = await runner.run({
    code: LIVECODEBENCH_JUDGE,
    stdin: '',
    timeoutMs: (limits.timeLimitMs + 1000) * task.tests.length + 5000,
    files: [
      { path: 'solution.py', content: program },
      { path: 'tests.json', content: JSON.stringify(tests) },
    ],
    ...(limits.memoryMb === undefined ? {} : { memoryMb: limits.memoryMb }),
  });
  if (result.status !== 'ok') return { test: 0, ...failedRun(result) };
  const verdict = readVerdict(result.stdout);
  if (verdict === null) {
    return {
      verdict: 'runtime_error',
      test: 0,
      message: 'the judge wrote no verdict (the program ended it)',
    };
  }
  const failed = verdict.results.findIndex((outcome) => outcome !== 'passed');
  if (failed === -1 && verdict.results.length === task.tests.length)
    return { verdict: 'passed', test: task.tests.length };
  const test = failed === -1 ? verdict.results.length : failed;
  return {
    verdict: (verdict.results[test] as TestVerdict | undefined) ?? 'runtime_error',
    test,
    message: verdict.message ?? 'not every test was judged',
  };
}

/** The judge's verdict: its last line of standard output, or null when that is not one. */
function readVerdict(stdout: string): { results: string[]; message: string | null } | null {
  const last = stdout.trimEnd().split('\n').at(-1) ?? '';
  let parsed: unknown;
  try {
    parsed = JSON.parse(last);
  } catch {
    return null;
  }
  const { results, message } = (parsed ?? {}) as { results?: unknown; message?: unknown };
  if (!Array.isArray(results) || !results.every((item) => TEST_VERDICTS.has(item as string))) return null;
  return { results: results as string[], message: typeof message === 'string' ? message : null };
}
