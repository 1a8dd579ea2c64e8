import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createSandbox,
  type ExecResult,
  type LocalSandbox,
  type RunCodeRequest,
  type RunCodeResponse,
  type Sandbox,
} from '../src/index';

// A server speaking SandboxFusion's POST /run_code on top of the local backend, so the client is tested over real
// HTTP against real executions. `failNext` makes the next requests fail at the transport level.
let local: LocalSandbox;
let server: Server;
let url = '';
let inFlight = 0;
let maxInFlight = 0;
let received: RunCodeRequest[] = [];
let failNext: ('reset' | '503')[] = [];

const SIGNALS: Record<string, number> = { SIGKILL: 9, SIGSEGV: 11, SIGXCPU: 24 };

function toRunCodeResponse(result: ExecResult): RunCodeResponse {
  if (result.status === 'sandbox_error')
    return { status: 'SandboxError', message: result.sandboxMessage ?? '' };
  const signal = result.signal === null ? null : -(SIGNALS[result.signal] ?? 1);
  return {
    status: result.status === 'ok' ? 'Success' : 'Failed',
    message: '',
    run_result: {
      status: result.status === 'timeout' ? 'TimeLimitExceeded' : 'Finished',
      return_code: result.exitCode ?? signal,
      stdout: result.stdout,
      stderr: result.stderr,
      execution_time: result.durationMs / 1000,
    },
  };
}

async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const failure = failNext.shift();
  if (failure === 'reset') {
    request.socket.destroy();
    return;
  }
  if (failure === '503') {
    response.writeHead(503).end('overloaded');
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
    const result = await local.run({
      code: body.code,
      stdin: body.stdin,
      timeoutMs: body.run_timeout * 1000,
      memoryMb: body.memory_limit_MB,
      files: Object.entries(body.files).map(([path, data]) => ({
        path,
        content: Buffer.from(data, 'base64'),
      })),
    });
    response
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify(toRunCodeResponse(result)));
  } finally {
    inFlight--;
  }
}

beforeAll(async () => {
  local = await createSandbox({ workers: 2 });
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
      { code: 'while True: pass', timeoutMs: 1000 },
      { code: 'x = bytearray(10 * 1024**3)' },
      { code: 'import ctypes\nctypes.string_at(0)' },
    ]);
    expect(error).toMatchObject({ status: 'error', exitCode: 1 });
    expect(error?.stderr).toMatch(/KeyError: 'k'/);
    expect(timeout?.status).toBe('timeout');
    expect(memory?.status).toBe('memory');
    expect(killed).toMatchObject({ status: 'killed', exitCode: null, signal: 'SIGSEGV' });
  });

  it('replays a session by prefixing the earlier cells, silenced', async () => {
    const result = await remote.run({ code: 'print(n * 2)', session: ['n = 21\nprint("hidden")'] });
    expect(result).toMatchObject({ status: 'ok', stdout: '42\n' });
  });

  it('keeps at most `concurrency` requests in flight and returns results in order', async () => {
    maxInFlight = 0;
    const results = await remote.runMany(
      [0, 1, 2, 3].map((i) => ({ code: `import time\ntime.sleep(0.6)\nprint(${i})` })),
    );
    expect(results.map((result) => result.stdout)).toEqual(['0\n', '1\n', '2\n', '3\n']);
    expect(maxInFlight).toBe(2);
  });

  it('retries transport errors (connection reset, HTTP 503) and then succeeds', async () => {
    failNext = ['reset', '503'];
    const result = await remote.run({ code: 'print("third time")' });
    expect(result).toMatchObject({ status: 'ok', stdout: 'third time\n' });
    expect(failNext).toEqual([]);
  });

  it('gives sandbox_error when every attempt fails, naming the cause', async () => {
    failNext = ['503', '503', '503'];
    const result = await remote.run({ code: 'print(1)' });
    expect(result.status).toBe('sandbox_error');
    expect(result.sandboxMessage).toMatch(/failed after 3 attempts: HTTP 503/);
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
