import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../../..');
const cli = resolve(import.meta.dirname, '../src/cli.ts');
const dir = mkdtempSync(join(tmpdir(), 'taorl-sandbox-cli-'));

function runCli(args: string[], input?: string) {
  return spawnSync(join(root, 'node_modules/.bin/tsx'), [cli, ...args], {
    input,
    encoding: 'utf8',
    timeout: 60_000,
  });
}

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('taorl-sandbox CLI', () => {
  it('runs a file and prints the JSON result', () => {
    const file = join(dir, 'snippet.py');
    writeFileSync(file, 'import sympy\nprint(sympy.isprime(97), input())\n');
    const run = runCli(['run', file, '--stdin', 'fed']);
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'ok', stdout: 'True fed\n' });
  });

  it('reads stdin and exits 1 when the status is not ok', () => {
    const run = runCli(['run', '-', '--timeout-ms', '800', '--no-preload'], 'while True:\n    pass\n');
    expect(run.status).toBe(1);
    expect(JSON.parse(run.stdout).status).toBe('timeout');
  });

  it('answers a usage error with exit code 2', () => {
    const run = runCli(['exec']);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/unknown command "exec"[\s\S]*Usage: taorl-sandbox run/);
    expect(runCli(['run', '-', '--timeout-ms', 'soon'], 'print(1)').status).toBe(2);
  });
});
