// What a request waiting for a worker costs taorl-sandbox serve: a server (this file, run with SERVE_QUEUE_ROLE=server)
// whose sandbox never finishes a run, so that every request but the first waits; N requests with a body of B bytes
// are sent and held from this process, and the server's memory after a full GC is compared with its memory before.
// Run from the repository root:
//   pnpm bench packages/sandbox/bench/serve-queue-memory.ts
// knobs: SERVE_QUEUE_CASES ("2000:0,200:8192,400:65536,60:1048576": requests:file bytes per case)
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import type { ExecResult, Sandbox } from '@taorl/sandbox';
import { startSandboxServer } from '@taorl/sandbox/node';

interface Memory {
  queued: number;
  rss: number;
  heap: number;
  external: number;
}

async function serve(): Promise<void> {
  const never = new Promise<ExecResult>(() => undefined);
  const sandbox = {
    backend: 'never',
    workers: 1,
    run: () => never,
    runMany: () => never.then((result) => [result]),
    close: async () => undefined,
  } as Sandbox;
  const server = await startSandboxServer({
    sandbox,
    port: 0,
    maxQueueBytes: 8 * 1024 ** 3,
    queueTimeoutMs: 600_000,
  });
  const memory = (): Memory => {
    (globalThis as { gc?: () => void }).gc?.();
    const usage = process.memoryUsage();
    return {
      queued: server.queued,
      rss: usage.rss,
      heap: usage.heapUsed,
      external: usage.external + usage.arrayBuffers,
    };
  };
  process.on('SIGUSR2', () => console.log(JSON.stringify(memory())));
  process.on('SIGTERM', () => process.exit(0));
  console.log(JSON.stringify({ url: server.url }));
}

async function measure(count: number, fileBytes: number): Promise<string> {
  const server = spawn(
    process.execPath,
    ['--expose-gc', '--conditions=@taorl/source', '--import', 'tsx', import.meta.filename],
    {
      env: { ...process.env, SERVE_QUEUE_ROLE: 'server' },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const lines: string[] = [];
  server.stdout.on('data', (chunk: Buffer) => lines.push(...chunk.toString().trim().split('\n')));
  while (lines.length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
  const { url } = JSON.parse(lines[0] as string) as { url: string };
  const ask = async (): Promise<Memory> => {
    const before = lines.length;
    server.kill('SIGUSR2');
    while (lines.length === before) await new Promise((resolve) => setTimeout(resolve, 20));
    return JSON.parse(lines.at(-1) as string) as Memory;
  };
  const files = fileBytes > 0 ? { 'data.bin': Buffer.alloc(fileBytes, 7).toString('base64') } : {};
  // A verl call's body, with the file.
  const body = JSON.stringify({
    compile_timeout: 10,
    run_timeout: 10,
    code: 'print(1)',
    stdin: null,
    memory_limit_MB: 1024,
    language: 'python',
    files,
    fetch_files: [],
  });
  const base = await ask();
  const held = Array.from({ length: count }, () => {
    const sent = request(`${url}/run_code`, {
      method: 'POST',
      agent: false,
      headers: { 'content-type': 'application/json' },
    });
    sent.on('error', () => undefined);
    sent.end(body);
    return sent;
  });
  let now = await ask();
  while (now.queued < count - 1) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    now = await ask();
  }
  await new Promise((resolve) => setTimeout(resolve, 1000));
  now = await ask();
  server.kill('SIGTERM');
  for (const sent of held) sent.destroy();
  const per = (key: 'rss' | 'heap' | 'external') => ((now[key] - base[key]) / count / 1024).toFixed(1);
  return `| ${body.length} B | ${now.queued} | ${per('rss')} KiB | ${per('heap')} KiB | ${per('external')} KiB |`;
}

if (process.env.SERVE_QUEUE_ROLE === 'server') {
  await serve();
} else {
  const cases = (process.env.SERVE_QUEUE_CASES ?? '2000:0,200:8192,400:65536,60:1048576')
    .split(',')
    .map((one) => one.split(':').map(Number) as [number, number]);
  const rows = [
    '| body | requests waiting | resident per request | V8 heap per request | external per request |',
  ];
  rows.push('|---|---|---|---|---|');
  for (const [count, fileBytes] of cases) {
    rows.push(await measure(count, fileBytes));
    console.error(rows.at(-1));
  }
  console.log(rows.join('\n'));
}
