import { compareStdout } from './compare-stdout';
import { CALL_JUDGE, STDIO_JUDGE } from './judge-programs';
import { type JudgeLimits, type JudgeOutcome, judgeLikeLiveCodeBench } from './livecodebench-judge';
import { type PyJson, parsePyJson, pyEqual } from './python-json';
import { failedRun } from './run-status';

/**
 * What a judge needs of a sandbox: @taorl/sandbox's `Sandbox` (the local pool or a SandboxFusion client) has this
 * shape. `status` is one of the sandbox's execution statuses; any status that is not the program's own doing
 * ("sandbox_error", or one this package does not know) is an infrastructure failure, never a wrong answer.
 */
export interface CodeRunner {
  run(request: {
    code: string;
    stdin?: string;
    timeoutMs?: number;
    memoryMb?: number;
    files?: readonly { path: string; content: string }[];
    fetchFiles?: readonly string[];
  }): Promise<{
    status: string;
    stdout: string;
    stderr: string;
    exitCode: number | null;
    /** For `sandbox_error`: why the sandbox failed. */
    sandboxMessage?: string;
    files?: readonly { path: string; content: Uint8Array }[];
  }>;
}

/** One test: standard input and the expected standard output, or JSON arguments (one per line) and JSON result. */
export interface CodeTest {
  readonly input: string;
  readonly output: string;
}

/** A program's task: `stdin` tests, or `functional` tests that call `method` (LeetCode's `class Solution`). */
export type CodeTask =
  | { readonly id: string; readonly kind: 'stdin'; readonly tests: readonly CodeTest[] }
  | {
      readonly id: string;
      readonly kind: 'functional';
      readonly method: string;
      readonly tests: readonly CodeTest[];
    };

/** A programming problem: its statement, the code a solution starts from (may be empty) and its tests. */
export interface CodeProblem {
  readonly id: string;
  readonly question: string;
  readonly starterCode: string;
  readonly task: CodeTask;
}

/**
 * How a test ended. `infra_error` is the sandbox's failure (unreachable, crashed): the program was not judged, and
 * a reward must not count it as wrong (retry it, or leave the sample out).
 */
export type TestVerdict =
  | 'passed'
  | 'wrong_answer'
  | 'runtime_error'
  | 'time_limit'
  | 'memory_limit'
  | 'output_limit'
  | 'infra_error';

export interface CodeJudgement {
  readonly taskId: string;
  /** Every test passed. */
  readonly passed: boolean;
  /** 'passed', or the verdict of the first test that did not pass (judging stops there). */
  readonly verdict: TestVerdict;
  readonly testsPassed: number;
  readonly testsTotal: number;
  /** The first test that did not pass: its index, and what differed or what the program wrote to stderr. */
  readonly failure?: { readonly test: number; readonly message: string };
}

/**
 * How programs are judged (docs/explanation/grading.md, "Code judging modes"). `faithful`: each test in a fresh
 * process reading real standard input, as a contest judge runs it; the reward in training. `livecodebench`: as
 * LiveCodeBench's own runner judges, every test in one process with its quirks, so that scores compare with
 * published ones; for evaluation only, since the program shares the judge's process.
 */
export type CodeJudgeMode = 'faithful' | 'livecodebench';

/** Every judging mode, the default (`faithful`) first. */
export const CODE_JUDGE_MODES: readonly CodeJudgeMode[] = ['faithful', 'livecodebench'];

export interface JudgeOptions {
  /** Default `faithful`. */
  readonly mode?: CodeJudgeMode;
  /** Wall time per test, the process's start included. Default 6,000 ms (LiveCodeBench's `timeout=6`). */
  readonly timeLimitMs?: number;
  /** Memory per test (the sandbox's own default when left out). */
  readonly memoryMb?: number;
}

/** Raised for a task that cannot be judged (no tests, a functional task without a method); names the task. */
export class CodeTaskError extends Error {
  override readonly name = 'CodeTaskError';
}

/**
 * Judges a program on a task's tests in order and stops at the first test that does not pass, as LiveCodeBench's
 * grader does, in the chosen mode (`faithful` by default: one sandboxed process per test). Outputs are compared by
 * its rules: `compareStdout` for standard-input tests, Python equality of JSON values (`pyEqual`) for functional
 * ones.
 */
export async function judgeProgram(
  runner: CodeRunner,
  program: string,
  task: CodeTask,
  options: JudgeOptions = {},
): Promise<CodeJudgement> {
  if (task.tests.length === 0) throw new CodeTaskError(`task ${task.id}: has no tests`);
  if (task.kind === 'functional' && !/^[A-Za-z_]\w*$/.test(task.method)) {
    throw new CodeTaskError(`task ${task.id}: method "${task.method}" is not a Python identifier`);
  }
  const expected = task.kind === 'functional' ? parseFunctionalTests(task) : [];
  const timeLimitMs = options.timeLimitMs ?? 6000;
  if (!(timeLimitMs > 0))
    throw new RangeError(`judgeProgram: timeLimitMs must be positive, got ${timeLimitMs}`);
  const mode = options.mode ?? 'faithful';
  if (!CODE_JUDGE_MODES.includes(mode)) {
    throw new RangeError(
      `judgeProgram: mode must be one of ${CODE_JUDGE_MODES.join(', ')}, got ${String(mode)}`,
    );
  }
  const limits: JudgeLimits = {
    timeLimitMs,
    ...(options.memoryMb === undefined ? {} : { memoryMb: options.memoryMb }),
  };
  const outcome =
    mode === 'livecodebench'
      ? await judgeLikeLiveCodeBench(runner, program, task, limits)
      : await judgeInFreshProcesses(runner, program, task, expected, limits);
  return {
    taskId: task.id,
    passed: outcome.verdict === 'passed',
    verdict: outcome.verdict,
    testsPassed: outcome.test,
    testsTotal: task.tests.length,
    ...(outcome.message === undefined ? {} : { failure: { test: outcome.test, message: outcome.message } }),
  };
}

/** The `faithful` mode: each test in a fresh process of the sandbox, its input on real standard input. */
async function judgeInFreshProcesses(
  runner: CodeRunner,
  program: string,
  task: CodeTask,
  expected: readonly PyJson[],
  limits: JudgeLimits,
): Promise<JudgeOutcome> {
  const files = [{ path: 'solution.py', content: program }];
  if (task.kind === 'functional')
    files.push({ path: 'judge.json', content: JSON.stringify({ method: task.method }) });
  for (const [index, test] of task.tests.entries()) {
    const result = await runner.run({
      code: task.kind === 'stdin' ? STDIO_JUDGE : CALL_JUDGE,
      stdin: test.input,
      timeoutMs: limits.timeLimitMs,
      files,
      ...(limits.memoryMb === undefined ? {} : { memoryMb: limits.memoryMb }),
    });
    if (result.status !== 'ok') return { test: index, ...failedRun(result) };
    const comparison =
      task.kind === 'stdin'
        ? compareStdout(result.stdout, test.output)
        : compareJson(result.stdout, expected[index]!);
    if (!comparison.equal)
      return { verdict: 'wrong_answer', test: index, message: comparison.reason ?? 'the output differs' };
  }
  return { verdict: 'passed', test: task.tests.length };
}

/** Each test's expected result, parsed; inputs checked line by line, so a malformed test is never the program's fault. */
function parseFunctionalTests(task: CodeTask): PyJson[] {
  return task.tests.map((test, index) => {
    const parse = (text: string, what: string): PyJson => {
      try {
        return parsePyJson(text);
      } catch (error) {
        throw new CodeTaskError(
          `task ${task.id}, test ${index}: ${what} is not JSON (${(error as Error).message}): ${text.slice(0, 80)}`,
        );
      }
    };
    for (const [number, line] of test.input.split('\n').entries()) parse(line, `input line ${number + 1}`);
    return parse(test.output, 'the expected output');
  });
}

function compareJson(actual: string, expected: PyJson): { equal: boolean; reason?: string } {
  let got: PyJson;
  try {
    got = parsePyJson(actual);
  } catch (error) {
    return { equal: false, reason: `the result is not JSON (${(error as Error).message})` };
  }
  return pyEqual(got, expected)
    ? { equal: true }
    : { equal: false, reason: `returned ${actual.slice(0, 80)}` };
}
