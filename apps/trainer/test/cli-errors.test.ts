import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { commands, runCli } from '../src/index.js';
import { capture } from './support/capture-io.js';

const cli = new URL('../src/cli.ts', import.meta.url).pathname;
const root = mkdtempSync(join(tmpdir(), 'taorl-cli-errors-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
afterEach(() => {
  vi.unstubAllEnvs();
});

// A failure that is neither a usage nor a config error: the folder given to serve is not a model.
const missing = join(root, 'no-such-model');
const message = `taorl serve: ${missing}: no config.json (expected a Hugging Face model folder)\n`;
const stackLine = /\n\s+at /;

function runProcess(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, ['--conditions=@taorl/source', '--import', 'tsx', cli, ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env,
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stderr })));
}

describe('taorl CLI failures', () => {
  it('prints the message only and exits 1', async () => {
    vi.stubEnv('TAORL_DEBUG', '');
    const { io, err } = capture();
    expect(await runCli(['serve', '--model', missing], io)).toBe(1);
    expect(err.join('')).toBe(message);
  });

  it('prints the stack trace with --debug before the command or TAORL_DEBUG=1', async () => {
    vi.stubEnv('TAORL_DEBUG', '');
    const flag = capture();
    expect(await runCli(['--debug', 'serve', '--model', missing], flag.io)).toBe(1);
    expect(flag.err.join('')).toMatch(stackLine);
    expect(flag.err.join('')).toContain(`${missing}: no config.json`);
    vi.stubEnv('TAORL_DEBUG', '1');
    const env = capture();
    expect(await runCli(['serve', '--model', missing], env.io)).toBe(1);
    expect(env.err.join('')).toMatch(stackLine);
  });

  it('names the causes of an error without their stacks', async () => {
    vi.stubEnv('TAORL_DEBUG', '');
    const { io, err } = capture();
    const failing = {
      summary: 'fails',
      flags: {},
      configFlags: false,
      run: async () => Promise.reject(new Error('outer', { cause: new Error('inner') })),
    };
    commands.set('fails-for-test', failing);
    try {
      expect(await runCli(['fails-for-test'], io)).toBe(1);
    } finally {
      commands.delete('fails-for-test');
    }
    expect(err.join('')).toBe('taorl fails-for-test: outer\n  caused by: inner\n');
  });

  it('refuses a --set through an object prototype as an unknown field (it was a TypeError about "def")', async () => {
    for (const path of ['__proto__.x', 'constructor.prototype.x', 'rl.__proto__.x']) {
      const { io, err } = capture();
      expect(await runCli(['rl', '--set', `${path}=1`], io)).toBe(2);
      expect(err.join('')).toBe(`taorl rl: config error: --set ${path}=1: ${path}: unknown field\n`);
    }
  });

  it('the taorl process writes the same single line to standard error', async () => {
    const env = { ...process.env, TAORL_DEBUG: '' };
    const plain = await runProcess(['serve', '--model', missing], env);
    expect(plain).toEqual({ code: 1, stderr: message });
    const debug = await runProcess(['--debug', 'serve', '--model', missing], env);
    expect(debug.code).toBe(1);
    expect(debug.stderr).toMatch(stackLine);
  }, 60_000);
});
