import { execFile } from 'node:child_process';
import { connect } from 'node:net';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type ExecRequest, type LocalSandbox, type Sandbox } from '../src/index';
import { type SandboxServer, startSandboxServer } from '../src/node';
import { QUEUE_BODY_FACTOR, QUEUE_REQUEST_BYTES } from '../src/serve/server';
import { http, runCodeBody } from './serve-http';

// taorl-sandbox serve end to end: a real local pool behind the real server on 127.0.0.1, asked over real HTTP by
// @taorl/sandbox's own SandboxFusion backend (a round trip through both of our parts) and by raw requests.

let local: LocalSandbox;
let server: SandboxServer;
let remote: Sandbox;
const TOKEN = 'test-token-0123456789abcdef';

beforeAll(async () => {
  local = await createSandbox({ workers: 2 });
  const served = await createSandbox({ workers: 2 });
  server = await startSandboxServer({ sandbox: served, port: 0, token: TOKEN });
  remote = await createSandbox({
    backend: 'sandboxfusion',
    url: server.url,
    retries: 0,
    token: TOKEN,
  });
});

afterAll(async () => {
  await remote?.close();
  await server?.close();
  await local?.close();
});

const auth = { authorization: `Bearer ${TOKEN}` };

describe('taorl-sandbox serve: our SandboxFusion backend against our server', () => {
  const cases: [string, ExecRequest][] = [
    ['ok, with stdin', { code: 'import sympy\nprint(sympy.factor("x**2-1"), input())', stdin: 'fed' }],
    ['error', { code: 'x = 1\nraise ValueError("bad")' }],
    ['timeout', { code: 'while True:\n    pass', timeoutMs: 1500 }],
    ['memory', { code: 'b = bytearray(3 * 1024**3)', memoryMb: 512 }],
    ['killed', { code: 'import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)' }],
    ['output_limit', { code: 'print("x" * 2_000_000)' }],
    ['session replay', { code: 'print(y * 2)', session: ['y = 21'] }],
  ];

  it.each(cases)('%s: the same status and output as the local pool', async (_name, request) => {
    const [direct, served] = await Promise.all([local.run(request), remote.run(request)]);
    expect(served.status).toBe(direct.status);
    if (direct.status !== 'output_limit') {
      expect(served.stdout).toBe(direct.stdout);
      // Tracebacks name the cell the same way on both paths.
      expect(served.stderr.split('\n').slice(-2)).toEqual(direct.stderr.split('\n').slice(-2));
    }
    expect(served.exitCode).toBe(direct.exitCode);
  });

  it('carries files in and fetched files back', async () => {
    const result = await remote.run({
      code: 'import os\nos.makedirs("out")\nopen("out/r.txt", "w").write(open("in/a.txt").read().upper())',
      files: [{ path: 'in/a.txt', content: 'hello' }],
      fetchFiles: ['out/r.txt', 'never-written.txt'],
    });
    expect(result.status).toBe('ok');
    expect(result.files?.map((file) => [file.path, Buffer.from(file.content).toString()])).toEqual([
      ['out/r.txt', 'HELLO'],
    ]);
  });
});

describe('taorl-sandbox serve: the wire format', () => {
  it('answers in SandboxFusion shape with our status in "taorl"', async () => {
    const answer = await http(server.url, '/run_code', {
      body: runCodeBody('import os\nos.kill(os.getpid(), 11)'),
      headers: auth,
    });
    expect(answer.status).toBe(200);
    expect(answer.json()).toMatchObject({
      status: 'Failed',
      message: '',
      compile_result: null,
      run_result: { status: 'Finished', return_code: -11, stdout: '', stderr: '' },
      files: {},
      taorl: { status: 'killed', signal: 'SIGSEGV', exit_code: null },
    });
  });

  it('maps a timeout to TimeLimitExceeded with no return code', async () => {
    const answer = await http(server.url, '/run_code', {
      body: runCodeBody('import time\nprint("started", flush=True)\ntime.sleep(30)', { run_timeout: 1 }),
      headers: auth,
    });
    expect(answer.json()).toMatchObject({
      status: 'Failed',
      run_result: { status: 'TimeLimitExceeded', return_code: null, stdout: 'started\n' },
      taorl: { status: 'timeout' },
    });
  });

  it('does not follow a link or read a directory named in fetch_files', async () => {
    const answer = await http(server.url, '/run_code', {
      body: runCodeBody(
        'import os\nos.symlink("/etc/hostname", "link")\nos.mkdir("dir")\nopen("real", "w").write("r")',
        { fetch_files: ['link', 'dir', 'real'] },
      ),
      headers: auth,
    });
    expect(answer.json()).toMatchObject({ status: 'Success', files: { real: 'cg==' } });
    expect(Object.keys((answer.json() as { files: object }).files)).toEqual(['real']);
  });

  it.each([
    [{ language: 'cpp' }, /language "cpp" is not supported by this server; supported: python, pytest/],
    [{ memory_limit_MB: 0.5 }, /memory_limit_MB must be an integer, got 0.5/],
    [{ files: { '../escape.txt': 'aGk=' } }, /files key "..\/escape.txt" leaves the run's scratch directory/],
    [{ files: { 'a.txt': 'not base64!' } }, /files\["a.txt"\] must be base64 text or null/],
    [{ fetch_files: ['/etc/passwd'] }, /fetch_files\[0\] "\/etc\/passwd" is absolute: only paths under/],
    [{ code: 42 }, /code must be a string/],
  ])('refuses %j with 422 naming the field', async (extra, message) => {
    const answer = await http(server.url, '/run_code', {
      body: runCodeBody('print(1)', extra),
      headers: auth,
    });
    expect(answer.status).toBe(422);
    expect((answer.json() as { detail: string }).detail).toMatch(message);
  });

  it('answers /v1/ping and /health without the token, and counts runs in /metrics', async () => {
    expect((await http(server.url, '/v1/ping')).text).toBe('pong');
    expect((await http(server.url, '/health')).json()).toMatchObject({ status: 'ok', concurrency: 2 });
    const before = await http(server.url, '/metrics', { headers: auth });
    const okRuns = (text: string) => Number(/taorl_sandbox_runs_total\{status="ok"\} (\d+)/.exec(text)?.[1]);
    await http(server.url, '/run_code', { body: runCodeBody('print(1)'), headers: auth });
    const after = await http(server.url, '/metrics', { headers: auth });
    expect(okRuns(after.text)).toBe(okRuns(before.text) + 1);
    expect(after.text).toMatch(/taorl_sandbox_run_latency_seconds\{quantile="0.95"\} \d/);
    expect(after.text).toMatch(/taorl_sandbox_queue_length 0/);
  });
});

describe('taorl-sandbox serve: safe by default', () => {
  it('needs the token on every route but /health and /v1/ping', async () => {
    for (const path of ['/run_code', '/metrics']) {
      const answer = await http(server.url, path, {
        ...(path === '/run_code' ? { body: runCodeBody('print(1)') } : {}),
        headers: { authorization: 'Bearer wrong-token-0123456789' },
      });
      expect(answer.status).toBe(401);
    }
    expect((await http(server.url, '/run_code', { body: runCodeBody('print(1)') })).status).toBe(401);
  });

  it('refuses a foreign Host or Origin (DNS rebinding, browser pages) and non-JSON bodies', async () => {
    const body = runCodeBody('print(1)');
    expect(
      (await http(server.url, '/run_code', { body, headers: { ...auth, host: 'evil.example' } })).status,
    ).toBe(403);
    const origin = { ...auth, origin: 'http://evil.example' };
    expect((await http(server.url, '/run_code', { body, headers: origin })).status).toBe(403);
    const plain = { ...auth, 'content-type': 'text/plain' };
    expect((await http(server.url, '/run_code', { body, headers: plain })).status).toBe(415);
  });

  it('answers 413 to a body declared over the cap without reading it', async () => {
    const { port } = new URL(server.url);
    const reply = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => {
        socket.write(
          'POST /run_code HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
            `Authorization: Bearer ${TOKEN}\r\nContent-Length: ${64 * 1024 * 1024}\r\n\r\n{"code":`,
        );
      });
      let text = '';
      socket.on('data', (chunk) => {
        text += chunk.toString();
      });
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });
    expect(reply).toMatch(/^HTTP\/1.1 413/);
    expect(reply).toMatch(/over this server's limit of 16777216 bytes/);
  });

  it('refuses to bind beyond loopback without a token', async () => {
    const sandbox = await createSandbox({ workers: 1, preload: [] });
    try {
      await expect(startSandboxServer({ sandbox, host: '0.0.0.0', port: 0 })).rejects.toThrow(
        /host 0.0.0.0 is reachable from other machines: a token is required/,
      );
      await expect(startSandboxServer({ sandbox, port: 0, queueSize: 3 } as never)).rejects.toThrow(
        /queueSize/,
      );
      // Every count and time has its range, named with the field.
      await expect(startSandboxServer({ sandbox, port: 0, maxConnections: 1e6 })).rejects.toThrow(
        'startSandboxServer: maxConnections must be an integer from 1 to 16384, got 1000000',
      );
      await expect(startSandboxServer({ sandbox, port: 0, concurrency: 1e5 })).rejects.toThrow(
        'startSandboxServer: concurrency must be an integer from 1 to 4096, got 100000',
      );
      await expect(startSandboxServer({ sandbox, port: 0, maxQueue: -1 })).rejects.toThrow(
        'startSandboxServer: maxQueue must be an integer from 0 to 1000000, got -1',
      );
      await expect(startSandboxServer({ sandbox, port: 0, heartbeatMs: 2 ** 31 })).rejects.toThrow(
        'startSandboxServer: heartbeatMs must be an integer from 0 to 2147483647, got 2147483648',
      );
    } finally {
      await sandbox.close();
    }
  });
});

describe('taorl-sandbox serve: back-pressure and shutdown', () => {
  const slow = (seconds: number) => runCodeBody(`import time\ntime.sleep(${seconds})\nprint("done")`);

  async function until(condition: () => boolean): Promise<void> {
    while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
  }

  it('runs one, queues one, refuses the next with 504 and Retry-After; a queue wait past its limit gets 504', async () => {
    const sandbox = await createSandbox({ workers: 1, preload: [] });
    const small = await startSandboxServer({ sandbox, port: 0, maxQueue: 1, queueTimeoutMs: 60_000 });
    try {
      const first = http(small.url, '/run_code', { body: slow(1.5) });
      await until(() => small.running === 1);
      const second = http(small.url, '/run_code', { body: slow(0) });
      await until(() => small.queued === 1);
      const third = await http(small.url, '/run_code', { body: slow(0) });
      expect(third.status).toBe(504);
      expect(third.headers['retry-after']).toBe('1');
      expect((third.json() as { detail: string }).detail).toMatch(
        /all 1 workers are busy and 1 requests wait/,
      );
      for (const answer of await Promise.all([first, second])) {
        expect(answer.status).toBe(200);
        expect(answer.json()).toMatchObject({ status: 'Success', run_result: { stdout: 'done\n' } });
      }
    } finally {
      await small.close();
    }
    const sandbox2 = await createSandbox({ workers: 1, preload: [] });
    const impatient = await startSandboxServer({ sandbox: sandbox2, port: 0, queueTimeoutMs: 200 });
    try {
      const first = http(impatient.url, '/run_code', { body: slow(1.5) });
      await until(() => impatient.running === 1);
      const waited = await http(impatient.url, '/run_code', { body: slow(0) });
      expect(waited.status).toBe(504);
      expect(waited.headers['retry-after']).toBe('1');
      expect((waited.json() as { detail: string }).detail).toMatch(/no worker was free within 200 ms/);
      expect((await first).status).toBe(200);
    } finally {
      await impatient.close();
    }
  });

  it('keeps a waiting request alive past the client’s read timeout: its 200 head, then spaces until the answer', async () => {
    // Python's requests (the library verl's client calls) with a read timeout of 1 s between two reads, the
    // request queued behind a run of 5 s: with a space every 300 ms it gets its answer, without it times out. (The
    // run is long so that the client, which starts Python and imports requests first, still finds it running on
    // a loaded machine: with 2.5 s it once came in time to be answered within the 1 s.)
    const askWithReadTimeout = async (url: string, code: string) => {
      const program = [
        'import json, sys, requests',
        'try:',
        '    r = requests.post(sys.argv[1], data=sys.argv[2], headers={"Content-Type": "application/json"}, timeout=1)',
        '    print(json.dumps({"status": r.status_code, "body": r.json()}))',
        'except requests.exceptions.ReadTimeout as error:',
        '    print(json.dumps({"timeout": str(error)}))',
      ].join('\n');
      const { stdout } = await promisify(execFile)('/usr/bin/python3', [
        '-c',
        program,
        `${url}/run_code`,
        JSON.stringify(runCodeBody(code)),
      ]);
      return JSON.parse(stdout) as { status?: number; body?: unknown; timeout?: string };
    };
    for (const heartbeatMs of [300, 0]) {
      const sandbox = await createSandbox({ workers: 1, preload: [] });
      const served = await startSandboxServer({ sandbox, port: 0, heartbeatMs });
      try {
        const first = http(served.url, '/run_code', { body: slow(5) });
        await until(() => served.running === 1);
        const waited = await askWithReadTimeout(served.url, 'print(6 * 7)');
        if (heartbeatMs > 0) {
          expect(waited).toMatchObject({
            status: 200,
            body: { status: 'Success', run_result: { stdout: '42\n' } },
          });
        } else {
          expect(waited.timeout).toMatch(/Read timed out/);
        }
        expect((await first).json()).toMatchObject({ status: 'Success', run_result: { stdout: 'done\n' } });
      } finally {
        await served.close();
      }
    }
    // A refusal after the head went out is told in the body, as SandboxFusion tells its own failures.
    const sandbox = await createSandbox({ workers: 1, preload: [] });
    const served = await startSandboxServer({ sandbox, port: 0, heartbeatMs: 100, queueTimeoutMs: 700 });
    try {
      const first = http(served.url, '/run_code', { body: slow(1.5) });
      await until(() => served.running === 1);
      const waited = await http(served.url, '/run_code', { body: slow(0) });
      expect(waited.status).toBe(200);
      expect(waited.text).toMatch(/^ +\{/);
      expect(waited.json()).toEqual({
        status: 'SandboxError',
        message: 'HTTP 504: no worker was free within 700 ms',
        compile_result: null,
        run_result: null,
        executor_pod_name: null,
        files: {},
      });
      expect((await first).status).toBe(200);
    } finally {
      await served.close();
    }
  });

  it('bounds the queue by memory: a body that would take it past maxQueueBytes gets 504 with Retry-After', async () => {
    const maxBodyBytes = 64 * 1024;
    const oneLargest = QUEUE_REQUEST_BYTES + QUEUE_BODY_FACTOR * maxBodyBytes;
    const sandbox = await createSandbox({ workers: 1, preload: [] });
    await expect(
      startSandboxServer({ sandbox, port: 0, maxBodyBytes, maxQueueBytes: oneLargest - 1 }),
    ).rejects.toThrow(/maxQueueBytes \d+ cannot hold one request of maxBodyBytes 65536/);
    const bounded = await startSandboxServer({ sandbox, port: 0, maxBodyBytes, maxQueueBytes: oneLargest });
    try {
      const first = http(bounded.url, '/run_code', { body: slow(1.5) });
      await until(() => bounded.running === 1);
      const second = http(bounded.url, '/run_code', { body: slow(0) });
      await until(() => bounded.queued === 1);
      // About 60 KB of body: with the waiting request's share, past the bound.
      const files = { 'data.txt': Buffer.alloc(45_000, 1).toString('base64') };
      const third = await http(bounded.url, '/run_code', { body: runCodeBody('print(1)', { files }) });
      expect(third.status).toBe(504);
      expect(third.headers['retry-after']).toBe('1');
      expect((third.json() as { detail: string }).detail).toMatch(/queue past its limit of 0.2 MB/);
      for (const answer of await Promise.all([first, second])) expect(answer.status).toBe(200);
      // Once nothing waits, the same request fits.
      const again = await http(bounded.url, '/run_code', { body: runCodeBody('print(1)', { files }) });
      expect(again.json()).toMatchObject({ status: 'Success', run_result: { stdout: '1\n' } });
    } finally {
      await bounded.close();
    }
  });

  it('on close: the running request finishes, the waiting one gets 503, new connections are refused', async () => {
    const sandbox = await createSandbox({ workers: 1, preload: [] });
    const closing = await startSandboxServer({ sandbox, port: 0 });
    const running = http(closing.url, '/run_code', { body: slow(1) });
    await until(() => closing.running === 1);
    const waiting = http(closing.url, '/run_code', { body: slow(0) });
    await until(() => closing.queued === 1);
    const closed = closing.close(20_000);
    const [ran, refused] = await Promise.all([running, waiting]);
    expect(ran.status).toBe(200);
    expect(ran.json()).toMatchObject({ status: 'Success', run_result: { stdout: 'done\n' } });
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('1');
    await closed;
    await expect(http(closing.url, '/health')).rejects.toThrow(/ECONNREFUSED/);
  });

  it('on close past the grace time: the run still going is ended and answered SandboxError', async () => {
    const sandbox = await createSandbox({ workers: 1, preload: [] });
    const closing = await startSandboxServer({ sandbox, port: 0 });
    const running = http(closing.url, '/run_code', { body: slow(30) });
    await until(() => closing.running === 1);
    await closing.close(300);
    const answer = await running;
    expect(answer.status).toBe(200);
    expect(answer.json()).toMatchObject({
      status: 'SandboxError',
      run_result: { status: 'Error' },
      taorl: { status: 'sandbox_error' },
    });
  });
});
