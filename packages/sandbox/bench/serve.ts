// taorl-sandbox serve under load on loopback, side by side with the in-process pool in one run: the same snippet,
// the same worker count and the same number of concurrent clients, calling the pool's run() directly or POSTing
// /run_code to a server process (the built CLI). Every request carries its own number and must come back exactly
// once with its own output. Then the security suite's hostile cases (test/security.test.ts) go over HTTP, and the
// server must still answer. Server memory (the server process and its workers) at rest and at the peak under load.
// Run from the repository root after `pnpm build`:
//   pnpm bench packages/sandbox/bench/serve.ts
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createSandbox, type ExecStatus } from '@taorl/sandbox';

const WORKERS = Number(process.env.SERVE_BENCH_WORKERS ?? 2);
const CONCURRENCY = (process.env.SERVE_BENCH_CONCURRENCY ?? '16,64').split(',').map(Number);
const CALLS = Number(process.env.SERVE_BENCH_CALLS ?? 400);
const ROUNDS = 2;

import { HOSTILE_CASES } from '../test/hostile-code';

const CLI = resolve(import.meta.dirname, '../dist/cli.js');

/** The snippet of request `id`: a 2 000-step integer loop (as bench/throughput.ts), plus the id. */
const snippet = (id: number) =>
  `total = 0\nfor i in range(1, 2001):\n    total += i * i % 7\nprint(total + ${id})`;
let loopTotal = 0;
for (let i = 1; i <= 2000; i++) loopTotal += (i * i) % 7;
const expected = (id: number) => `${loopTotal + id}\n`;

interface Measurement {
  perSecond: number;
  p50: number;
  p95: number;
  lost: number;
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] as number;
}

/**
 * `calls` requests from `clients` concurrent clients; each answer is checked against its id, and an id answered
 * twice, wrongly or never counts as lost. Latency is per request, from sending to the answer.
 */
async function measure(
  calls: number,
  clients: number,
  call: (id: number) => Promise<string>,
): Promise<Measurement> {
  const answered = new Array<number>(calls).fill(0);
  const latencies: number[] = [];
  let next = 0;
  let wrong = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (next < calls) {
        const id = next++;
        const t0 = performance.now();
        const stdout = await call(id);
        latencies.push(performance.now() - t0);
        answered[id] = (answered[id] as number) + 1;
        if (stdout !== expected(id)) wrong++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const lost = answered.filter((count) => count !== 1).length + wrong;
  return { perSecond: calls / seconds, p50: quantile(latencies, 0.5), p95: quantile(latencies, 0.95), lost };
}

function children(): Map<number, number[]> {
  const below = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      below.set(parent, [...(below.get(parent) ?? []), Number(entry)]);
    } catch {}
  }
  return below;
}

/** RSS of the server process itself and PSS of it with all its descendants (workers, their children), in MB. */
function serverMemory(pid: number): { nodeRssMb: number; treePssMb: number } {
  const field = (target: number, name: string) => {
    try {
      const rollup = readFileSync(`/proc/${target}/smaps_rollup`, 'utf8');
      return Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(rollup)?.[1] ?? 0);
    } catch {
      return 0; // the process ended while being read
    }
  };
  const below = children();
  let pss = 0;
  const frontier = [pid];
  while (frontier.length > 0) {
    const next = frontier.pop() as number;
    pss += field(next, 'Pss');
    frontier.push(...(below.get(next) ?? []));
  }
  return { nodeRssMb: field(pid, 'Rss') / 1024, treePssMb: pss / 1024 };
}

async function startServer(): Promise<{ child: ChildProcess; url: string }> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run pnpm build first`);
  const child = spawn(
    process.execPath,
    [
      CLI,
      'serve',
      '--port',
      '0',
      '--workers',
      String(WORKERS),
      '--max-queue',
      String(Math.max(...CONCURRENCY)),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  for (;;) {
    const url = /serving .* on (http:\/\/\S+)/.exec(output)?.[1];
    if (url) return { child, url };
    if (child.exitCode !== null) throw new Error(`the server exited: ${output}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

interface Answer {
  run_result: { stdout: string };
  taorl: { status: ExecStatus };
}

async function post(url: string, code: string, runTimeout = 30): Promise<Answer> {
  const response = await fetch(`${url}/run_code`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ code, language: 'python', run_timeout: runTimeout }),
  });
  if (response.status !== 200) throw new Error(`HTTP ${response.status}: ${await response.text()}`);
  return (await response.json()) as Answer;
}

const fmt = (value: number, digits = 1) => value.toFixed(digits);
const pool = await createSandbox({ workers: WORKERS, limits: { timeoutMs: 30_000 } });
const { child: server, url } = await startServer();
const serverPid = server.pid as number;
try {
  // Both paths warm, then memory at rest.
  await Promise.all([pool.run({ code: snippet(0) }), post(url, snippet(0))]);
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const atRest = serverMemory(serverPid);
  let peak = { nodeRssMb: 0, treePssMb: 0 };
  const sampler = setInterval(() => {
    const now = serverMemory(serverPid);
    peak = {
      nodeRssMb: Math.max(peak.nodeRssMb, now.nodeRssMb),
      treePssMb: Math.max(peak.treePssMb, now.treePssMb),
    };
  }, 250);

  const rows: string[] = [];
  for (const clients of CONCURRENCY) {
    // Interleaved rounds, so that a change in the machine's load falls on both paths alike.
    const inProcess: Measurement[] = [];
    const overHttp: Measurement[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      inProcess.push(
        await measure(CALLS, clients, async (id) => (await pool.run({ code: snippet(id) })).stdout),
      );
      overHttp.push(
        await measure(CALLS, clients, async (id) => (await post(url, snippet(id))).run_result.stdout),
      );
    }
    const total = (runs: Measurement[]) => ({
      perSecond: runs.length / runs.reduce((sum, run) => sum + 1 / run.perSecond, 0),
      p50: Math.max(...runs.map((run) => run.p50)),
      p95: Math.max(...runs.map((run) => run.p95)),
      lost: runs.reduce((sum, run) => sum + run.lost, 0),
    });
    const a = total(inProcess);
    const b = total(overHttp);
    rows.push(
      `| ${clients} | ${WORKERS} | ${ROUNDS} x ${CALLS} | ${fmt(a.perSecond)} | ${fmt(a.p50)} / ${fmt(a.p95)} | ` +
        `${fmt(b.perSecond)} | ${fmt(b.p50)} / ${fmt(b.p95)} | **${fmt(b.perSecond / a.perSecond, 2)}** | ${a.lost} / ${b.lost} |`,
    );
    console.error(rows.at(-1));
  }
  clearInterval(sampler);

  const hostile: string[] = [];
  for (const [name, code, status] of HOSTILE_CASES) {
    const answer = await post(url, code, 5);
    hostile.push(
      `${name}: ${answer.taorl.status}${answer.taorl.status === status ? '' : ` (expected ${status})`}`,
    );
  }
  const after = await post(url, snippet(7));
  const health = (await (await fetch(`${url}/health`)).json()) as { status: string };
  console.log(
    [
      '| clients | workers | requests | in-process exec/s | in-process p50 / p95 ms | HTTP exec/s | HTTP p50 / p95 ms | HTTP / in-process | lost (in-process / HTTP) |',
      '|---|---|---|---|---|---|---|---|---|',
      ...rows,
      '',
      `Server memory (the server process RSS; PSS of it and its ${WORKERS} workers with their processes): at rest ` +
        `${fmt(atRest.nodeRssMb)} MB / ${fmt(atRest.treePssMb)} MB, peak under load ${fmt(peak.nodeRssMb)} MB / ` +
        `${fmt(peak.treePssMb)} MB.`,
      '',
      `Hostile cases over HTTP (status per case): ${hostile.join('; ')}.`,
      `Afterwards: /run_code ${after.run_result.stdout === expected(7) ? 'answers right' : 'WRONG'}, /health ${health.status}.`,
    ].join('\n'),
  );
} finally {
  server.kill('SIGTERM');
  await pool.close();
}
