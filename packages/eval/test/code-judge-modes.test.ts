import { createSandbox, type Sandbox } from '@taorl/sandbox';
import { startSandboxServer } from '@taorl/sandbox/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CODE_JUDGE_MODES, type CodeJudgeMode, type CodeTask, judgeProgram } from '../src/index';
import { MODE_CASES } from './code-judge-modes-cases';

// The real local sandbox (bubblewrap + Debian's python3 with numpy) runs every program, in both modes.
let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await createSandbox({ backend: 'local', workers: 2 });
});
afterAll(async () => {
  await sandbox?.close();
});

describe.each(CODE_JUDGE_MODES)('judgeProgram in the %s mode', (mode: CodeJudgeMode) => {
  it.each(MODE_CASES.map((entry) => [entry.name, entry] as const))('a program that %s', async (_, entry) => {
    const judgement = await judgeProgram(sandbox, entry.program, entry.task, { mode });
    const failedTest = mode === 'livecodebench' ? (entry.livecodebenchFailedTest ?? 0) : 0;
    expect(judgement.verdict, judgement.failure?.message).toBe(entry[mode]);
    expect(judgement.testsPassed).toBe(judgement.passed ? entry.task.tests.length : failedTest);
  });
});

describe('the livecodebench mode', () => {
  const task: CodeTask = {
    id: 'add',
    kind: 'stdin',
    tests: [
      { input: '1 2\n', output: '3\n' },
      { input: '10 -4\n', output: '6' },
    ],
  };

  it('says what failed and where, and cannot be told a pass by what the program prints', async () => {
    const wrong = await judgeProgram(sandbox, 'a, b = map(int, input().split())\nprint(a * b)', task, {
      mode: 'livecodebench',
    });
    expect(wrong).toMatchObject({
      verdict: 'wrong_answer',
      failure: { test: 0, message: "line 0: '2' != '3'" },
    });
    const forged = 'import os\nos.write(1, b\'{"results": ["passed", "passed"], "message": null}\\n\')';
    expect((await judgeProgram(sandbox, forged, task, { mode: 'livecodebench' })).verdict).toBe(
      'wrong_answer',
    );
  });

  it('gives each test its time limit, and a runaway program time_limit', async () => {
    const judgement = await judgeProgram(sandbox, 'while True: pass', task, {
      mode: 'livecodebench',
      timeLimitMs: 1000,
    });
    expect(judgement).toMatchObject({ verdict: 'time_limit', testsPassed: 0 });
  });

  it('refuses a mode it does not know', async () => {
    await expect(judgeProgram(sandbox, 'print(3)', task, { mode: 'lcb' as CodeJudgeMode })).rejects.toThrow(
      /mode must be one of faithful, livecodebench, got lcb/,
    );
  });
});

describe("a sandbox's failure", () => {
  it("is infra_error with the sandbox's own reason, never a wrong answer", async () => {
    const unreachable = await createSandbox({
      backend: 'sandboxfusion',
      url: 'http://127.0.0.1:9',
      retries: 0,
    });
    const task: CodeTask = { id: 't', kind: 'stdin', tests: [{ input: '', output: '1' }] };
    for (const mode of CODE_JUDGE_MODES) {
      const judgement = await judgeProgram(unreachable, 'print(1)', task, { mode });
      expect(judgement.verdict).toBe('infra_error');
      expect(judgement.failure?.message).toMatch(
        /^sandbox_error: SandboxFusion failed after 1 attempts: http:\/\/127\.0\.0\.1:9\/run_code: fetch failed \(bad port\)$/,
      );
    }
    await unreachable.close();
  });
});

describe('through a SandboxFusion URL (taorl-sandbox serve), as on the local pool', () => {
  it('passes a right program that prints 250 KB, and calls a memory bomb memory_limit', async () => {
    const server = await startSandboxServer({ sandbox: await createSandbox({ workers: 1 }), port: 0 });
    const remote = await createSandbox({ backend: 'sandboxfusion', url: server.url });
    try {
      const task: CodeTask = {
        id: 'long',
        kind: 'stdin',
        tests: [{ input: '250000\n', output: 'x'.repeat(250000) }],
      };
      const program = 'print("x" * int(input()))';
      for (const runner of [sandbox, remote]) {
        expect(await judgeProgram(runner, program, task)).toMatchObject({ verdict: 'passed' });
      }
      // One allocation past the limit: a bomb that fills memory step by step takes seconds of wall time on a busy
      // machine, where it may meet the time limit first (test/security-runs.test.ts covers how that ends).
      const bomb = await judgeProgram(remote, 'block = bytearray(4 * 1024**3)', task, { memoryMb: 512 });
      expect(bomb.verdict, JSON.stringify(bomb)).toBe('memory_limit');
    } finally {
      await remote.close();
      await server.close();
    }
  });
});
