import { createSandbox, type Sandbox } from '@taorl/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CodeRunner, type CodeTask, CodeTaskError, judgeProgram } from '../src/index';

// The real local sandbox (bubblewrap + Debian's python3) runs every program.
let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await createSandbox({ backend: 'local', workers: 2 });
});
afterAll(async () => {
  await sandbox?.close();
});

const addition: CodeTask = {
  id: 'add',
  kind: 'stdin',
  tests: [
    { input: '1 2\n', output: '3\n' },
    { input: '10 -4\n', output: '6' },
    { input: '7 8', output: '15' },
  ],
};

describe('judgeProgram on standard-input tests', () => {
  it('passes a right program, with LiveCodeBench prelude names and sys.exit taken as a normal end', async () => {
    const program =
      'a, b = map(int, input().split())\nprint(int(fsum([a, b])))  # fsum: the math prelude\nexit(0)';
    expect(await judgeProgram(sandbox, program, addition)).toEqual({
      taskId: 'add',
      passed: true,
      verdict: 'passed',
      testsPassed: 3,
      testsTotal: 3,
    });
  });

  it('stops at the first wrong answer and says where', async () => {
    const program = 'a, b = map(int, input().split())\nprint(a + b if a < 5 else a * b)';
    const judgement = await judgeProgram(sandbox, program, addition);
    expect(judgement).toMatchObject({ passed: false, verdict: 'wrong_answer', testsPassed: 1 });
    expect(judgement.failure).toEqual({ test: 1, message: 'line 0: "-40" != "6"' });
  });

  it('accepts trailing spaces, blank lines and equal decimals; refuses a program that prints nothing', async () => {
    const floats: CodeTask = { id: 'f', kind: 'stdin', tests: [{ input: '', output: '0.5\n1.25 3\n' }] };
    expect((await judgeProgram(sandbox, 'print("0.50  ")\nprint("1.250 3.0")\nprint()', floats)).passed).toBe(
      true,
    );
    const silent = await judgeProgram(sandbox, 'pass', floats);
    expect(silent).toMatchObject({
      verdict: 'wrong_answer',
      failure: { message: '1 output lines, expected 2' },
    });
  });

  it('names a runtime error, a timeout, a flood of output and a program that never reads its input', async () => {
    const crash = await judgeProgram(sandbox, 'raise ValueError("boom")', addition);
    expect(crash.verdict).toBe('runtime_error');
    expect(crash.failure?.message).toMatch(/ValueError: boom/);
    expect((await judgeProgram(sandbox, 'while True: pass', addition, { timeLimitMs: 1500 })).verdict).toBe(
      'time_limit',
    );
    expect((await judgeProgram(sandbox, 'while True: print("x" * 10000)', addition)).verdict).toBe(
      'output_limit',
    );
    expect((await judgeProgram(sandbox, 'print(3)', addition)).verdict).toBe('wrong_answer');
  });
});

describe('judgeProgram on functional (LeetCode) tests', () => {
  const twoSum: CodeTask = {
    id: 'two-sum',
    kind: 'functional',
    method: 'twoSum',
    tests: [
      { input: '[2, 7, 11, 15]\n9', output: '[0, 1]' },
      { input: '[3, 2, 4]\n6', output: '[1, 2]' },
    ],
  };
  const solution = [
    'class Solution:',
    '    def twoSum(self, nums: List[int], target: int) -> List[int]:',
    '        print("debugging goes to stderr")',
    '        seen = {}',
    '        for index, value in enumerate(nums):',
    '            if target - value in seen:',
    '                return seen[target - value], index',
    '            seen[value] = index',
  ].join('\n');

  it('calls the method with JSON arguments, takes a tuple as a list, keeps prints out of the result', async () => {
    expect(await judgeProgram(sandbox, solution, twoSum)).toMatchObject({ passed: true, testsPassed: 2 });
  });

  it('compares as Python does: a set or a nested tuple is not the list it prints like', async () => {
    const asSet = solution.replace(
      'return seen[target - value], index',
      'return {seen[target - value], index}',
    );
    expect(await judgeProgram(sandbox, asSet, twoSum)).toMatchObject({
      verdict: 'wrong_answer',
      testsPassed: 0,
    });
    const nested = solution.replace(
      'return seen[target - value], index',
      'return [(seen[target - value], index)][0:1]',
    );
    const nestedTask: CodeTask = { ...twoSum, tests: [{ input: '[2, 7]\n9', output: '[[0, 1]]' }] };
    expect((await judgeProgram(sandbox, nested, nestedTask)).verdict).toBe('wrong_answer');
  });

  it('names a missing method as the program error it is', async () => {
    const judgement = await judgeProgram(sandbox, 'class Solution:\n    pass', twoSum);
    expect(judgement.verdict).toBe('runtime_error');
    expect(judgement.failure?.message).toMatch(/AttributeError/);
  });
});

describe('bad tasks and broken sandboxes', () => {
  it('refuses a task without tests or with a test that is not JSON, naming the task and the test', async () => {
    await expect(judgeProgram(sandbox, 'pass', { id: 'empty', kind: 'stdin', tests: [] })).rejects.toThrow(
      'task empty: has no tests',
    );
    const bad: CodeTask = {
      id: 'lc9',
      kind: 'functional',
      method: 'f',
      tests: [{ input: '[1]', output: '[1' }],
    };
    await expect(judgeProgram(sandbox, 'pass', bad)).rejects.toThrow(CodeTaskError);
    await expect(judgeProgram(sandbox, 'pass', bad)).rejects.toThrow(/task lc9, test 0: the expected output/);
  });

  it('reports a sandbox failure as infra_error, never as a wrong answer', async () => {
    const broken: CodeRunner = {
      run: async () => ({ status: 'sandbox_error', stdout: '', stderr: 'worker crashed', exitCode: null }),
    };
    expect(await judgeProgram(broken, 'print(3)', addition)).toMatchObject({
      passed: false,
      verdict: 'infra_error',
    });
  });
});
