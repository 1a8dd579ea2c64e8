import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox } from '../src/index';
import { type SandboxServer, startSandboxServer } from '../src/node';
import { http, runCodeBody } from './serve-http';

// Findings of an adversarial sweep of taorl-sandbox serve (issue 39, items 1 and 2): the server must outlive a
// descriptor shortage, and no request may hold its event loop (so /health) for longer than a linear pass over it.

const root = resolve(import.meta.dirname, '../../..');
const cli = resolve(import.meta.dirname, '../src/cli.ts');
const dir = mkdtempSync(join(tmpdir(), 'taorl-serve-hardening-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `node --import tsx` under `prlimit --nofile=<limit>` (soft and hard). */
function underDescriptorLimit(limit: number, args: string[]): ChildProcess {
  return spawn('prlimit', [`--nofile=${limit}`, process.execPath, '--import', 'tsx', ...args], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

function collect(child: ChildProcess): { text: () => string } {
  let text = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    text += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    text += chunk.toString();
  });
  return { text: () => text };
}

async function until(condition: () => boolean, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The bubblewrap processes the server started (its workers). */
function workerPids(serverPid: number): number[] {
  return readdirSync('/proc').flatMap((entry) => {
    if (!/^\d+$/.test(entry)) return [];
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [name, parent] = [
        stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')),
        Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]),
      ];
      return parent === serverPid && name === 'bwrap' ? [Number(entry)] : [];
    } catch {
      return [];
    }
  });
}

describe('taorl-sandbox serve out of file descriptors (issue 39.1)', () => {
  it('a worker that cannot be started for EMFILE fails its one request; the process lives on', async () => {
    // The pool replaces a killed worker while every descriptor is taken: spawn fails with EMFILE, which Node
    // reports as an 'error' event on the child; unheard, it ended the whole process.
    const script = join(dir, 'emfile.mts');
    writeFileSync(
      script,
      `import { openSync, closeSync } from 'node:fs';
import { createSandbox } from ${JSON.stringify(resolve(import.meta.dirname, '../src/index.ts'))};
const sandbox = await createSandbox({ workers: 1, preload: [] });
const first = await sandbox.run({ code: 'print(1)' });
process.kill(sandbox.workerPids()[0], 'SIGKILL');
const held = [];
try { for (;;) held.push(openSync('/dev/null', 'r')); } catch {}
const starved = await sandbox.run({ code: 'print(2)' }); // the dead worker: sandbox_error, and a respawn that fails
const again = await sandbox.run({ code: 'print(3)' });   // no worker can start: sandbox_error naming EMFILE
for (const fd of held) closeSync(fd);
const after = await sandbox.run({ code: 'print(4)' });   // descriptors back: a new worker runs it
console.log(JSON.stringify([first, starved, again, after].map((r) => [r.status, r.stdout, r.sandboxMessage ?? ''])));
await sandbox.close();
`,
    );
    const child = underDescriptorLimit(400, [script]);
    const output = collect(child);
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(output.text()).not.toMatch(/Unhandled 'error' event/);
    expect(code).toBe(0);
    const results = JSON.parse(output.text().trim().split('\n').at(-1) as string) as string[][];
    expect(results[0]).toEqual(['ok', '1\n', '']);
    expect(results[1]?.[0]).toBe('sandbox_error');
    expect(results[2]?.[0]).toBe('sandbox_error');
    expect(results[2]?.[2]).toMatch(/EMFILE/);
    expect(results[3]).toEqual(['ok', '4\n', '']);
  }, 120_000);

  it('held half-sent requests past the descriptor limit: connections are capped, the server lives on', async () => {
    // The reproduction at a limit of 200: more half-sent requests than descriptors, then a worker killed
    // and requests sent, so that the pool replaces the worker while the connections hold the descriptors.
    const server = underDescriptorLimit(200, [cli, 'serve', '--port', '0', '--workers', '2', '--no-preload']);
    const output = collect(server);
    const held: Socket[] = [];
    try {
      await until(() => /serving .* on http/.test(output.text()) || server.exitCode !== null, 'the server');
      const url = /serving .* on (http:\/\/\S+)/.exec(output.text())?.[1] as string;
      const port = Number(new URL(url).port);
      for (let index = 0; index < 300; index++) {
        const socket = connect(port, '127.0.0.1', () =>
          socket.write(
            'POST /run_code HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
              'Content-Length: 100\r\n\r\n{"co',
          ),
        );
        socket.on('error', () => undefined);
        held.push(socket);
      }
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const [worker] = workerPids(server.pid as number);
      process.kill(worker as number, 'SIGKILL');
      // Answered or refused, as the cap allows; what matters is that the server does not die meanwhile.
      await Promise.allSettled(
        Array.from({ length: 4 }, () => http(url, '/run_code', { body: runCodeBody('print(1)') })),
      );
      for (const socket of held) socket.destroy();
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(output.text()).not.toMatch(/Unhandled 'error' event/);
      expect(server.exitCode).toBeNull();
      const answers = await Promise.all(
        Array.from({ length: 4 }, (_, index) =>
          http(url, '/run_code', { body: runCodeBody(`print(${index})`) }),
        ),
      );
      expect(server.exitCode).toBeNull();
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
      // Every answer is a run's; the killed worker's request may be SandboxError, the others ran.
      const ran = answers.filter((answer, index) => {
        const body = answer.json() as { status: string; run_result: { stdout: string } };
        return body.status === 'Success' && body.run_result.stdout === `${index}\n`;
      });
      expect(ran.length).toBeGreaterThanOrEqual(3);
      const metrics = (await http(url, '/metrics')).text;
      expect(Number(/taorl_sandbox_connections_dropped_total (\d+)/.exec(metrics)?.[1])).toBeGreaterThan(0);
      expect(output.text()).not.toMatch(/Unhandled 'error' event/);
    } finally {
      for (const socket of held) socket.destroy();
      const closed = new Promise((resolve) => server.once('close', resolve));
      if (server.exitCode === null && server.signalCode === null) {
        server.kill('SIGTERM');
        await closed;
      }
    }
  }, 180_000);
});

describe('taorl-sandbox serve: no request holds the event loop (issue 39.2)', () => {
  let server: SandboxServer;

  beforeAll(async () => {
    server = await startSandboxServer({
      sandbox: await createSandbox({ workers: 1, preload: [], limits: { maxFileBytes: 32 * 1024 * 1024 } }),
      port: 0,
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  /** The slowest /health answer while `request` is in flight (polled back to back), and the request's answer. */
  async function slowestHealthDuring<T>(request: Promise<T>): Promise<{ slowestMs: number; answer: T }> {
    let settled = false;
    const answer = request.finally(() => {
      settled = true;
    });
    let slowestMs = 0;
    while (!settled) {
      const started = performance.now();
      await http(server.url, '/health');
      slowestMs = Math.max(slowestMs, performance.now() - started);
    }
    return { slowestMs, answer: await answer };
  }

  /** The fastest of three JSON round trips of `value` in this process: one linear pass over its bytes. */
  function linearPassMs(value: unknown): number {
    const times = [0, 1, 2].map(() => {
      const started = performance.now();
      JSON.parse(JSON.stringify(value));
      return performance.now() - started;
    });
    return Math.min(...times);
  }

  it('160,000 fetch_files names (a 1.6 MB body): /health is held no longer than a few linear passes', async () => {
    // Before: the duplicate check compared every name with all before it (13.5 s for these names).
    const names = Array.from({ length: 160_000 }, (_, index) => `d/${index.toString(36).padStart(7, '0')}`);
    const body = runCodeBody('print("ok")', { fetch_files: names });
    const pass = linearPassMs(body);
    const { slowestMs, answer } = await slowestHealthDuring(http(server.url, '/run_code', { body }));
    expect(answer.status).toBe(200);
    expect(answer.json()).toMatchObject({ status: 'Success', files: {} });
    console.log(
      `fetch_files x 160k: /health held ${slowestMs.toFixed(0)} ms; one JSON pass ${pass.toFixed(1)} ms`,
    );
    // Before the fix: 270 passes (the duplicate check was quadratic); the bound leaves room for a loaded machine.
    expect(slowestMs / pass).toBeLessThan(100);
  }, 120_000);

  it('a 16 MiB fetched file (a 22 MB reply): /health is held no longer than a few linear passes', async () => {
    // Before: the reply was appended to a string and searched again per 64 KiB chunk (28 s for this file).
    const size = 16 * 1024 * 1024;
    const code = `open("big.bin", "wb").write(bytes(range(256)) * ${size / 256})`;
    const reply = { files: { 'big.bin': Buffer.alloc(size, 7).toString('base64') } };
    const pass = linearPassMs(reply);
    const { slowestMs, answer } = await slowestHealthDuring(
      http(server.url, '/run_code', { body: runCodeBody(code, { fetch_files: ['big.bin'] }) }),
    );
    const files = (answer.json() as { files: Record<string, string> }).files;
    expect(Buffer.from(files['big.bin'] as string, 'base64').length).toBe(size);
    console.log(
      `16 MiB fetched: /health held ${slowestMs.toFixed(0)} ms; one JSON pass ${pass.toFixed(1)} ms`,
    );
    expect(slowestMs / pass).toBeLessThan(40);
  }, 120_000);
});
