import { spawn, spawnSync } from 'node:child_process';
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

  it('serve: answers /run_code until SIGTERM, then stops cleanly', async () => {
    const child = spawn(
      join(root, 'node_modules/.bin/tsx'),
      [cli, 'serve', '--port', '0', '--workers', '1'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    while (!/serving .* on (http:\/\/\S+)/.test(output) && child.exitCode === null) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const url = /serving .* on (http:\/\/\S+)/.exec(output)?.[1];
    expect(output).toMatch(/1 workers, isolation bwrap/);
    const answer = await fetch(`${url}/run_code`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code: 'print(6 * 7)', language: 'python' }),
    });
    expect(await answer.json()).toMatchObject({ status: 'Success', run_result: { stdout: '42\n' } });
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(output).toMatch(/SIGTERM: finishing running requests[\s\S]*stopped/);
  });

  it('serve: a second SIGINT does not cut the shutdown short; the running request is answered', async () => {
    const child = spawn(
      join(root, 'node_modules/.bin/tsx'),
      [cli, 'serve', '--port', '0', '--workers', '1', '--no-preload'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    while (!/serving .* on (http:\/\/\S+)/.test(output) && child.exitCode === null) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const url = /serving .* on (http:\/\/\S+)/.exec(output)?.[1];
    // Runs for a second and a half: both signals come while it runs.
    const code = 'import time\nprint("started", flush=True)\ntime.sleep(1.5)\nprint("done")';
    const answer = fetch(`${url}/run_code`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code, language: 'python', run_timeout: 20 }),
    });
    const metrics = async () => (await fetch(`${url}/metrics`)).text();
    while (!/taorl_sandbox_running 1/.test(await metrics())) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    child.kill('SIGINT');
    while (!output.includes('SIGINT: finishing running requests')) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    child.kill('SIGINT');
    const body = (await (await answer).json()) as { status: string; run_result: { stdout: string } };
    expect(body).toMatchObject({ status: 'Success', run_result: { stdout: 'started\ndone\n' } });
    expect(await exited).toBe(0);
    expect(output).toMatch(/SIGINT: already stopping; running requests are answered first[\s\S]*stopped/);
  });

  it('answers a usage error with exit code 2', () => {
    const run = runCli(['exec']);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/unknown command "exec"[\s\S]*Usage: taorl-sandbox run/);
    expect(runCli(['run', '-', '--timeout-ms', 'soon'], 'print(1)').status).toBe(2);
    const many = runCli(['serve', '--workers', '100000', '--port', '0']);
    expect(many.status).toBe(2);
    expect(many.stderr).toMatch(/workers must be an integer from 1 to 256, got 100000[\s\S]*Usage:/);
    const mixed = runCli(['serve', '--stdin', 'x']);
    expect(mixed.status).toBe(2);
    expect(mixed.stderr).toMatch(/serve does not take --stdin/);
    const open = runCli(['serve', '--host', '0.0.0.0', '--port', '0', '--no-preload']);
    expect(open.status).toBe(2);
    expect(open.stderr).toMatch(/host 0.0.0.0 is reachable from other machines: a token is required/);
  });
});
