import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/run';
import { defaultBenchmarkDir } from '../src/node';

async function run(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, { stdout: (text) => (stdout += text), stderr: (text) => (stderr += text) });
  return { code, stdout, stderr };
}

const lines = (rows: object[]): string => rows.map((row) => JSON.stringify(row)).join('\n');

describe('taorl-eval', () => {
  it('grade: extracts from a response or takes a bare answer, exit code by correctness', async () => {
    const boxed = await run(['grade', '--pred', 'so \\boxed{\\frac{1}{2}}', '--gold', '0.5']);
    expect(boxed.code).toBe(0);
    expect(JSON.parse(boxed.stdout)).toEqual({
      correct: true,
      extracted: '\\frac{1}{2}',
      gold: '0.5',
      reason: 'equivalent',
    });
    const bare = await run(['grade', '--pred', 'x = 3', '--gold', '4', '--gold', '3']);
    expect(bare.code).toBe(0);
    expect(JSON.parse(bare.stdout).gold).toEqual(['4', '3']);
    expect((await run(['grade', '--pred', '2', '--gold', '3'])).code).toBe(1);
  });

  it('score: grades samples against benchmark golds (inline and with the pool) and prints the table', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'taorl-eval-cli-'));
    const samples = join(dir, 'samples.jsonl');
    // AMC23 problem 0 has gold 27.0, problem 1 has gold 36.0.
    writeFileSync(
      samples,
      lines([
        { problem_id: '0', response: 'so \\boxed{27}', response_tokens: 100 },
        {
          problem_id: '0',
          response: '```python\nprint(1/0)\n```\n```output\nZeroDivisionError\n```\n\\boxed{26}',
          response_tokens: 300,
        },
        { problem_id: '1', response: '\\boxed{36}', response_tokens: 200 },
        { problem_id: '1', response: '\\boxed{36.0}', response_tokens: 200 },
      ]),
    );
    // Without --data the golds come from the benchmark files the package ships; --data names a folder.
    const inline = await run(['score', samples, '--benchmark', 'amc23']);
    expect(inline.code).toBe(0);
    expect(inline.stdout.split('\n')[2]).toBe(
      '| amc23 | 2 | 75.0 | 75.0 | 100.0 | 100.0 | 200.0 | 0.3 | 0.3 | 0.0 |',
    );
    const pooled = await run([
      'score',
      samples,
      '--benchmark',
      'amc23',
      '--data',
      defaultBenchmarkDir,
      '--workers',
      '2',
    ]);
    expect(pooled.stdout).toBe(inline.stdout);
  });

  it('score: counts tool use from the calls a sample records, in any tool format', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'taorl-eval-cli-'));
    const samples = join(dir, 'samples.jsonl');
    // The responses use a tool format no text pattern knows; the recorded calls carry the statistics.
    const calls = [
      { status: 'ok', code: 'a = 27\nprint(a)' },
      { status: 'error', code: 'print(1/0)' },
    ];
    writeFileSync(
      samples,
      lines([
        { problem_id: '0', gold: '27', response: '<run>...</run> so \\boxed{27}', tool_calls: calls },
        { problem_id: '0', gold: '27', response: '\\boxed{27}', tool_calls: [] },
      ]),
    );
    const scored = await run(['score', samples]);
    expect(scored.stderr).toBe('');
    // Tool calls 2 / 2 samples = 1.0, code lines 3 / 2 = 1.5, success 1 - 1/2 = 50 %.
    expect(scored.stdout.split('\n')[2]).toBe(
      `| ${samples} | 1 | 100.0 | 100.0 | 100.0 | 100.0 | – | 1.0 | 1.5 | 50.0 |`,
    );
  });

  it('reports bad input with the file, line and field, and unknown commands with usage', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'taorl-eval-cli-'));
    const samples = join(dir, 'bad.jsonl');
    writeFileSync(
      samples,
      lines([
        { problem_id: 'a', response: 'x', gold: '1' },
        { problem_id: 'b', gold: '2' },
      ]),
    );
    const missing = await run(['score', samples]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/bad\.jsonl:2: missing field "response"/);
    writeFileSync(samples, lines([{ problem_id: 'a', response: 'x' }]));
    expect((await run(['score', samples])).stderr).toMatch(/no gold for problem "a"/);
    writeFileSync(
      samples,
      lines([{ problem_id: 'a', gold: '1', response: 'x', tool_calls: [{ status: 'ok' }] }]),
    );
    expect((await run(['score', samples])).stderr).toMatch(
      /bad\.jsonl:1: field "tool_calls\[0\]\.code" must be a string/,
    );
    writeFileSync(
      samples,
      lines([{ problem_id: 'a', gold: '1', response: 'x', tool_calls: [], code_lines: 2 }]),
    );
    expect((await run(['score', samples])).stderr).toMatch(
      /bad\.jsonl:1: field "code_lines" is counted from the recorded calls in "tool_calls"/,
    );
    const unknown = await run(['frobnicate']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown command "frobnicate"[\s\S]*Usage: taorl-eval/);
  });

  it('--help, -h and help print the usage on stdout and exit 0', async () => {
    for (const flag of ['--help', '-h', 'help']) {
      const help = await run([flag]);
      expect(help).toMatchObject({ code: 0, stderr: '' });
      expect(help.stdout).toMatch(/^Usage: taorl-eval <command>[\s\S]*score <samples\.jsonl>/);
    }
  });
});
