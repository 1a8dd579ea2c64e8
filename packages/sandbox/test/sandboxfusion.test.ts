import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { constants, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkSandboxHealth,
  createSandbox,
  type LocalSandbox,
  type RunCodeRequest,
  type RunCodeResponse,
  type Sandbox,
} from '../src/index';

// A fake SandboxFusion server over real HTTP on 127.0.0.1 that runs code the way SandboxFusion does: the code in a
// temporary file, `python <file>` in a new session in a temporary directory holding the files, RLIMIT_AS from
// memory_limit_MB, the process group killed at run_timeout, return_code -n for a signal. And its pipe limit:
// like the server measured in issue 22, it stops reading a run's pipes once 128 KiB of output came in, so a run that
// prints more blocks until the timeout. `failNext` makes the next requests fail at the transport level.
const PYTHON = '/usr/bin/python3';
const READ_LIMIT_BYTES = 128 * 1024;
let server: Server;
let url = '';
let inFlight = 0;
let maxInFlight = 0;
let received: RunCodeRequest[] = [];
let failNext: ('reset' | '503' | '429' | '422')[] = [];
/**
 * How the fake differs from SandboxFusion: `returnsFiles` false answers no fetch_files (an older server), and
 * `appliesMemoryLimit` false runs without RLIMIT_AS, as a server that enforces memory_limit_MB otherwise (a container
 * limit that stalls the run until its timeout) or not at all.
 */
const fake = { returnsFiles: true, appliesMemoryLimit: true };
/** Whether the server stopped the last run at its timeout. */
let lastTimedOut = false;

const LAUNCH =
  'import os, resource, sys\nlimit = int(sys.argv[1]) * 2**20\nresource.setrlimit(resource.RLIMIT_AS, (limit, limit))\nos.execv(sys.executable, [sys.executable, sys.argv[2]])';

function runLikeSandboxFusion(body: RunCodeRequest): Promise<RunCodeResponse> {
  const dir = mkdtempSync(join(tmpdir(), 'fake-sandboxfusion-'));
  for (const [path, data] of Object.entries(body.files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), Buffer.from(data, 'base64'));
  }
  const file = join(dir, `tmp${randomBytes(4).toString('hex')}.py`);
  writeFileSync(file, body.code);
  const started = performance.now();
  const memoryMb = fake.appliesMemoryLimit ? body.memory_limit_MB : 1024 * 1024;
  const child = spawn(PYTHON, ['-c', LAUNCH, String(memoryMb), file], {
    cwd: dir,
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdin.on('error', () => undefined);
  child.stdin.end(body.stdin);
  const output = { stdout: [] as Buffer[], stderr: [] as Buffer[] };
  let read = 0;
  for (const name of ['stdout', 'stderr'] as const) {
    child[name].on('data', (chunk: Buffer) => {
      output[name].push(chunk);
      read += chunk.length;
      if (read >= READ_LIMIT_BYTES) {
        child.stdout.pause();
        child.stderr.pause();
      }
    });
  }
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      process.kill(-(child.pid as number), 'SIGKILL');
    } catch {
      // The run ended already; its pipes are what is left, unread.
    }
    child.stdout.destroy();
    child.stderr.destroy();
  }, body.run_timeout * 1000);
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const files: Record<string, string> = {};
      for (const path of fake.returnsFiles ? body.fetch_files : []) {
        if (existsSync(join(dir, path))) files[path] = readFileSync(join(dir, path)).toString('base64');
      }
      rmSync(dir, { recursive: true, force: true });
      lastTimedOut = timedOut;
      const returnCode = code ?? -(constants.signals[signal as NodeJS.Signals] ?? 1);
      resolve({
        status: !timedOut && returnCode === 0 ? 'Success' : 'Failed',
        message: '',
        run_result: {
          status: timedOut ? 'TimeLimitExceeded' : 'Finished',
          return_code: timedOut ? null : returnCode,
          stdout: Buffer.concat(output.stdout).toString(),
          stderr: Buffer.concat(output.stderr).toString(),
          execution_time: (performance.now() - started) / 1000,
        },
        ...(fake.returnsFiles ? { files } : {}),
      });
    });
  });
}

async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const failure = failNext.shift();
  if (failure === 'reset') {
    request.socket.destroy();
    return;
  }
  if (failure === '422') {
    response.writeHead(422).end('{"detail":"refused"}');
    return;
  }
  if (failure === '503' || failure === '429') {
    response.writeHead(Number(failure), { 'retry-after': '1' }).end('overloaded');
    return;
  }
  if (request.method !== 'POST' || request.url !== '/run_code') {
    response.writeHead(404).end();
    return;
  }
  const body = JSON.parse(Buffer.concat(chunks).toString()) as RunCodeRequest;
  received.push(body);
  inFlight++;
  maxInFlight = Math.max(maxInFlight, inFlight);
  try {
    const result = await runLikeSandboxFusion(body);
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result));
  } finally {
    inFlight--;
  }
}

let local: LocalSandbox;

beforeAll(async () => {
  local = await createSandbox({ workers: 1 });
  server = createServer((request, response) => {
    handle(request, response).catch(() => response.writeHead(500).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(async () => {
  server?.close();
  await local?.close();
});

describe('sandboxfusion backend over HTTP', () => {
  let remote: Sandbox;
  beforeAll(async () => {
    remote = await createSandbox({
      backend: 'sandboxfusion',
      url,
      concurrency: 2,
      retries: 2,
      retryDelayMs: 10,
    });
  });

  it('sends the documented fields and maps a success', async () => {
    received = [];
    const result = await remote.run({
      code: 'print(input(), open("in.txt").read())',
      stdin: 'from stdin\n',
      files: [{ path: 'in.txt', content: 'from a file' }],
      timeoutMs: 4000,
      memoryMb: 512,
    });
    expect(result).toMatchObject({ status: 'ok', exitCode: 0, stdout: 'from stdin from a file\n' });
    expect(received[0]).toMatchObject({
      language: 'python',
      run_timeout: 4,
      memory_limit_MB: 512,
      stdin: 'from stdin\n',
      files: { 'in.txt': Buffer.from('from a file').toString('base64') },
    });
  });

  it('maps errors, timeouts, memory and crashes onto our statuses', async () => {
    const [error, timeout, memory, killed] = await remote.runMany([
      { code: 'raise KeyError("k")' },
      { code: 'print("start")\nwhile True: pass', timeoutMs: 1000 },
      { code: 'x = bytearray(10 * 1024**3)' },
      { code: 'import ctypes\nctypes.string_at(0)' },
    ]);
    expect(error).toMatchObject({ status: 'error', exitCode: 1 });
    expect(error?.stderr).toMatch(/KeyError: 'k'/);
    // Line-buffered, as in the local backend: what was printed before the timeout is kept.
    expect(timeout).toMatchObject({ status: 'timeout', stdout: 'start\n' });
    expect(memory?.status).toBe('memory');
    expect(killed).toMatchObject({ status: 'killed', exitCode: null, signal: 'SIGSEGV' });
  });

  it('replays a session by prefixing the earlier cells, silenced', async () => {
    const result = await remote.run({ code: 'print(n * 2)', session: ['n = 21\nprint("hidden")'] });
    expect(result).toMatchObject({ status: 'ok', stdout: '42\n' });
  });

  it('keeps the output up to maxOutputBytes as the local pool does (a 250 KB answer passes), past the pipe limit', async () => {
    const code = 'print("x" * 250000)';
    const [fromRemote, fromLocal] = await Promise.all([remote.run({ code }), local.run({ code })]);
    expect(lastTimedOut).toBe(false);
    expect(fromRemote).toMatchObject({
      status: 'ok',
      stdoutTruncated: false,
      stdout: `${'x'.repeat(250000)}\n`,
    });
    expect(fromRemote.stdout).toBe(fromLocal.stdout);
  });

  it('bounds the output inside the program: past 1 MiB is output_limit at once, never a blocked run', async () => {
    const [stdout, stderr] = await remote.runMany([
      { code: 'import sys\nsys.stdout.write("x" * 2 * 1024**2)\nprint("never")', timeoutMs: 5000 },
      { code: 'import os\nos.write(2, b"e" * 2 * 1024**2)', timeoutMs: 5000 },
    ]);
    expect(lastTimedOut).toBe(false);
    expect(stdout).toMatchObject({ status: 'output_limit', stdoutTruncated: true, stderrTruncated: false });
    expect(stdout?.stdout).toBe('x'.repeat(1024 ** 2));
    expect(stderr).toMatchObject({ status: 'output_limit', stdoutTruncated: false, stderrTruncated: true });
    expect(stderr?.stderr).toBe('e'.repeat(1024 ** 2));
    // Output a subprocess writes straight to the descriptor is bounded too; exactly the cap is not cut.
    const [child, exact] = await remote.runMany([
      { code: 'import subprocess\nsubprocess.run(["head", "-c", "3000000", "/dev/zero"])', timeoutMs: 5000 },
      { code: `print("y" * ${1024 ** 2 - 1})` },
    ]);
    expect(lastTimedOut).toBe(false);
    expect(child).toMatchObject({ status: 'output_limit', stdoutTruncated: true });
    expect(exact).toMatchObject({
      status: 'ok',
      stdoutTruncated: false,
      stdout: `${'y'.repeat(1024 ** 2 - 1)}\n`,
    });
  });

  it('falls back to the pipes (serverOutputBytes a stream) with a server that returns no files', async () => {
    fake.returnsFiles = false;
    try {
      const [long, exact] = await remote.runMany([
        { code: 'import sys\nsys.stdout.write("x" * 200 * 1024)', timeoutMs: 5000 },
        { code: `print("y" * ${64 * 1024 - 1})` },
      ]);
      expect(lastTimedOut).toBe(false);
      expect(long).toMatchObject({
        status: 'output_limit',
        stdoutTruncated: true,
        stdout: 'x'.repeat(64 * 1024),
      });
      expect(exact).toMatchObject({ status: 'ok', stdout: `${'y'.repeat(64 * 1024 - 1)}\n` });
    } finally {
      fake.returnsFiles = true;
    }
  });

  it('reports a memory bomb as memory where the server does not apply memory_limit_MB itself', async () => {
    fake.appliesMemoryLimit = false;
    try {
      const result = await remote.run({ code: 'x = bytes(2 * 1024**3)\nprint(len(x))', memoryMb: 512 });
      expect(result.status).toBe('memory');
      expect(result.stderr).toMatch(/MemoryError/);
    } finally {
      fake.appliesMemoryLimit = true;
    }
  });

  it('keeps a smaller maxOutputBytes, and flags what it cut', async () => {
    const small = await createSandbox({ backend: 'sandboxfusion', url, limits: { maxOutputBytes: 1000 } });
    const result = await small.run({ code: 'print("z" * 5000)' });
    expect(result).toMatchObject({ status: 'output_limit', stdout: 'z'.repeat(1000), stdoutTruncated: true });
  });

  it('shows the same traceback as the local backend, session replay included', async () => {
    const request = {
      code: 'import math\ny = math.sqrt(n)\nz = y / 0\n',
      session: ['n = 16\nprint("hidden")', 'raise ValueError("ignored on replay")'],
    };
    const [fromRemote, fromLocal] = await Promise.all([remote.run(request), local.run(request)]);
    expect(fromRemote.status).toBe('error');
    expect(fromRemote.stderr).toContain('File "<cell>", line 3, in <module>\n    z = y / 0');
    expect(fromRemote.stderr).not.toMatch(/tmp|taorl/);
    expect(fromRemote.stderr).toBe(fromLocal.stderr);
    expect(fromRemote.stdout).toBe('');
  });

  it('keeps at most `concurrency` requests in flight and returns results in order', async () => {
    maxInFlight = 0;
    const results = await remote.runMany(
      [0, 1, 2, 3].map((i) => ({ code: `import time\ntime.sleep(0.6)\nprint(${i})` })),
    );
    expect(results.map((result) => result.stdout)).toEqual(['0\n', '1\n', '2\n', '3\n']);
    expect(maxInFlight).toBe(2);
  });

  it('retries transport errors (connection reset, a full queue: HTTP 429) and then succeeds', async () => {
    failNext = ['reset', '429'];
    const result = await remote.run({ code: 'print("third time")' });
    expect(result).toMatchObject({ status: 'ok', stdout: 'third time\n' });
    expect(failNext).toEqual([]);
  });

  it('gives sandbox_error when every attempt fails, naming the cause', async () => {
    failNext = ['503', '503', '503'];
    const result = await remote.run({ code: 'print(1)' });
    expect(result.status).toBe('sandbox_error');
    expect(result.sandboxMessage).toMatch(
      /failed after 3 attempts: http:\/\/127.0.0.1:\d+\/run_code: HTTP 503/,
    );
  });

  it('spreads requests over several URLs by requests in flight, and retries on another after a failure', async () => {
    // Two counting servers that answer every request alike after 100 ms, and one port where nothing listens.
    const counts = [0, 0];
    const counting = await Promise.all(
      counts.map(async (_, index) => {
        const one = createServer((_request, response) => {
          counts[index] = (counts[index] as number) + 1;
          const answer: RunCodeResponse = {
            status: 'Success',
            run_result: {
              status: 'Finished',
              return_code: 0,
              stdout: `${index}\n`,
              stderr: '',
              execution_time: 0,
            },
          };
          setTimeout(() => response.end(JSON.stringify(answer)), 100);
        });
        await new Promise<void>((resolve) => one.listen(0, '127.0.0.1', resolve));
        return one;
      }),
    );
    const urls = counting.map((one) => `http://127.0.0.1:${(one.address() as { port: number }).port}`);
    try {
      const spread = await createSandbox({ backend: 'sandboxfusion', url: urls, concurrency: 8 });
      const results = await spread.runMany(Array.from({ length: 8 }, () => ({ code: 'print(1)' })));
      expect(results.every((result) => result.status === 'ok')).toBe(true);
      expect(counts).toEqual([4, 4]);
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const dead = `http://127.0.0.1:${(closed.address() as { port: number }).port}`;
      await new Promise((resolve) => closed.close(resolve));
      const failover = await createSandbox({
        backend: 'sandboxfusion',
        url: [dead, urls[0] as string],
        retries: 1,
      });
      expect(await failover.run({ code: 'print(1)' })).toMatchObject({ status: 'ok', stdout: '0\n' });
    } finally {
      for (const one of counting) one.close();
    }
  });

  it('gives sandbox_error for a refused request (HTTP 4xx), at once and never blamed on the code', async () => {
    failNext = ['422', '422'];
    const result = await remote.run({ code: 'print(1)' });
    expect(result.status).toBe('sandbox_error');
    expect(result.sandboxMessage).toMatch(
      /SandboxFusion at http:\/\/127.0.0.1:\d+\/run_code refused the request: HTTP 422: \{"detail":"refused"\}/,
    );
    // Not retried: the same request would be refused again.
    expect(failNext).toEqual(['422']);
    failNext = [];
  });

  it('passes a health check, and fails one against an unreachable server naming its URL', async () => {
    await expect(checkSandboxHealth(remote)).resolves.toBeUndefined();
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as { port: number }).port;
    await new Promise((resolve) => closed.close(resolve));
    const dead = await createSandbox({
      backend: 'sandboxfusion',
      url: `http://127.0.0.1:${port}`,
      retries: 0,
    });
    await expect(checkSandboxHealth(dead)).rejects.toThrow(
      new RegExp(
        `'sandboxfusion' sandbox failed its health check .*http://127.0.0.1:${port}/run_code.*ECONNREFUSED`,
      ),
    );
  });

  it('gives sandbox_error for an unreachable server', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as { port: number }).port;
    await new Promise((resolve) => closed.close(resolve));
    const dead = await createSandbox({
      backend: 'sandboxfusion',
      url: `http://127.0.0.1:${port}`,
      retries: 1,
      retryDelayMs: 1,
    });
    const result = await dead.run({ code: 'print(1)' });
    expect(result.status).toBe('sandbox_error');
    expect(result.sandboxMessage).toMatch(/ECONNREFUSED/);
  });

  it('rejects a bad URL', async () => {
    await expect(createSandbox({ backend: 'sandboxfusion', url: 'sandbox:8080' })).rejects.toThrow(
      /url must be/,
    );
  });
});
