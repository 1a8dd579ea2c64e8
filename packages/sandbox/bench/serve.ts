// taorl-sandbox serve under load on loopback, side by side with the in-process pool in one run.
// 1. Load, as a verl user meets it: verl's own unmodified client (test/fixtures/verl, Debian python3 with
//    python3-requests), N calls at once each from its own thread, against a server process with default options
//    (the built CLI), and the same N concurrent calls to the pool's run() in process: SERVE_BENCH_ROUNDS rounds
//    (3) per N, the two arms in alternating order. Every call carries its own number and must come back exactly
//    once with its own output ("lost" counts the others). CPU per call: the server process's own (HTTP, JSON, the
//    pool's host side; its workers not included) against this process's in the in-process arm, and the client's.
// 2. Per-request overhead of the server, before and after a change: the same Node clients against this build's
//    server and against another build's (SERVE_BENCH_BASELINE_CLI, e.g. main's dist/cli.js), interleaved.
// 3. The security suite's hostile cases (test/security.test.ts) over HTTP; the server must still answer.
// Server memory: the server process's RSS and the PSS of it with its workers, at rest and at the peak under load.
// Run from the repository root after `pnpm build`:
//   pnpm bench packages/sandbox/bench/serve.ts
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { createSandbox, type ExecStatus } from '@taorl/sandbox';
import { HOSTILE_CASES } from '../test/hostile-code';

const WORKERS = Number(process.env.SERVE_BENCH_WORKERS ?? 2);
const CONCURRENCY = (process.env.SERVE_BENCH_CONCURRENCY ?? '16,64,256').split(',').map(Number);
const CALLS = Number(process.env.SERVE_BENCH_CALLS ?? 512);
const ROUNDS = Number(process.env.SERVE_BENCH_ROUNDS ?? 3);
const OVERHEAD_CALLS = Number(process.env.SERVE_BENCH_OVERHEAD_CALLS ?? 256);
const BASELINE_CLI = process.env.SERVE_BENCH_BASELINE_CLI;

const CLI = resolve(import.meta.dirname, '../dist/cli.js');
const VERL_DRIVER = resolve(import.meta.dirname, '../test/fixtures/verl/run_verl_client.py');

/** The snippet of call `id`: a 2 000-step integer loop (as bench/throughput.ts), plus the id. */
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
  /** CPU ms per call of the calling side's host process (this process in process; the server over HTTP). */
  hostCpuMs?: number;
  /** CPU ms per call of verl's client process. */
  clientCpuMs?: number;
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] as number;
}

function summary(calls: number, seconds: number, latenciesMs: number[], lost: number): Measurement {
  latenciesMs.sort((a, b) => a - b);
  return {
    perSecond: calls / seconds,
    p50: quantile(latenciesMs, 0.5),
    p95: quantile(latenciesMs, 0.95),
    lost,
  };
}

/** `calls` calls from `clients` concurrent clients in this process; an id answered wrongly or never is lost. */
async function measure(
  calls: number,
  clients: number,
  call: (id: number) => Promise<string>,
): Promise<Measurement> {
  const latencies: number[] = [];
  let next = 0;
  let lost = 0;
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (next < calls) {
        const id = next++;
        const t0 = performance.now();
        const stdout = await call(id).catch(() => null);
        latencies.push(performance.now() - t0);
        if (stdout !== expected(id)) lost++;
      }
    }),
  );
  const cpu = process.cpuUsage(cpuBefore);
  return {
    ...summary(calls, (performance.now() - started) / 1000, latencies, lost),
    hostCpuMs: (cpu.user + cpu.system) / 1000 / calls,
  };
}

/** A process's own CPU time (user and system, its children not included) in ms, from /proc. */
function processCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime, fields 14 and 15 of stat(5), in clock ticks (100 per second on Linux).
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

interface VerlToolResult {
  status: boolean | number;
  metadata: { stdout: string | null; api_request_error: string | null };
  seconds: number;
}

/** `calls` calls through verl's client, `clients` at once (each call its own thread while it runs). */
async function measureVerl(
  url: string,
  serverPid: number,
  calls: number,
  clients: number,
): Promise<Measurement> {
  const job = {
    url: `${url}/run_code`,
    threads: clients,
    // verl's reward path: timeout 10 s, so its client gives each try 30 s and retries a 504 twice.
    tool: Array.from({ length: calls }, (_, id) => ({ code: snippet(id), timeout: 10 })),
  };
  const serverCpuBefore = processCpuMs(serverPid);
  const { stdout } = await promisify(execFile)('/usr/bin/python3', [VERL_DRIVER, JSON.stringify(job)], {
    maxBuffer: 256 * 1024 * 1024,
    env: { PATH: '/usr/bin:/bin', LANG: 'C.UTF-8', PYTHONDONTWRITEBYTECODE: '1' },
  });
  // The calls' own wall time: Python's start and its imports are not the server's.
  const serverCpuMs = processCpuMs(serverPid) - serverCpuBefore;
  const {
    tool: results,
    tool_seconds: seconds,
    tool_cpu_seconds: clientCpuSeconds,
  } = JSON.parse(stdout) as { tool: VerlToolResult[]; tool_seconds: number; tool_cpu_seconds: number };
  const lost = results.filter(
    (result, id) => result.status !== true || result.metadata.stdout !== expected(id),
  ).length;
  return {
    ...summary(
      calls,
      seconds,
      results.map((result) => result.seconds * 1000),
      lost,
    ),
    hostCpuMs: serverCpuMs / calls,
    clientCpuMs: (clientCpuSeconds * 1000) / calls,
  };
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

async function startServer(cli: string, extra: string[] = []): Promise<{ child: ChildProcess; url: string }> {
  if (!existsSync(cli)) throw new Error(`${cli} is missing: run pnpm build first`);
  const child = spawn(
    process.execPath,
    [cli, 'serve', '--port', '0', '--workers', String(WORKERS), ...extra],
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
const row = (m: Measurement) => `${fmt(m.perSecond)} | ${fmt(m.p50)} / ${fmt(m.p95)}`;
const pool = await createSandbox({ workers: WORKERS, limits: { timeoutMs: 30_000 } });
const { child: server, url } = await startServer(CLI);
const serverPid = server.pid as number;
const baseline = BASELINE_CLI ? await startServer(BASELINE_CLI, ['--max-queue', '64']) : null;
try {
  // Every path warm, then memory at rest.
  await Promise.all([
    pool.run({ code: snippet(0) }),
    post(url, snippet(0)),
    ...(baseline ? [post(baseline.url, snippet(0))] : []),
  ]);
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const atRest = serverMemory(serverPid);
  // Sampled only while the server is loaded: a sample walks /proc in this process, which runs the in-process pool.
  const peakDuring = async <T>(work: () => Promise<T>) => {
    let peak = { nodeRssMb: 0, treePssMb: 0 };
    const sampler = setInterval(() => {
      const now = serverMemory(serverPid);
      peak = {
        nodeRssMb: Math.max(peak.nodeRssMb, now.nodeRssMb),
        treePssMb: Math.max(peak.treePssMb, now.treePssMb),
      };
    }, 250);
    try {
      return { result: await work(), peak };
    } finally {
      clearInterval(sampler);
    }
  };

  const loadRows: string[] = [];
  for (const clients of CONCURRENCY) {
    const calls = Math.max(CALLS, clients);
    const ratios: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const inProcessArm = () =>
        measure(calls, clients, async (id) => (await pool.run({ code: snippet(id) })).stdout);
      const verlArm = () => peakDuring(() => measureVerl(url, serverPid, calls, clients));
      // Alternating order, so that neither arm always runs first after the other's load.
      let inProcess: Measurement;
      let verlRun: Awaited<ReturnType<typeof verlArm>>;
      if (round % 2 === 0) {
        inProcess = await inProcessArm();
        verlRun = await verlArm();
      } else {
        verlRun = await verlArm();
        inProcess = await inProcessArm();
      }
      const { result: verl, peak } = verlRun;
      ratios.push(verl.perSecond / inProcess.perSecond);
      loadRows.push(
        `| ${clients} | ${round + 1} | ${calls} | ${row(inProcess)} | ${row(verl)} | ` +
          `**${fmt(verl.perSecond / inProcess.perSecond, 2)}** | ${inProcess.lost} / ${verl.lost} | ` +
          `${fmt(inProcess.hostCpuMs ?? 0)} / ${fmt(verl.hostCpuMs ?? 0)} / ${fmt(verl.clientCpuMs ?? 0)} | ` +
          `${fmt(peak.nodeRssMb)} / ${fmt(peak.treePssMb)} |`,
      );
      console.error(loadRows.at(-1));
    }
    ratios.sort((a, b) => a - b);
    console.error(
      `${clients} at once: verl / in-process median ${fmt(quantile(ratios, 0.5), 2)}, ` +
        `range ${fmt(ratios[0] as number, 2)}-${fmt(ratios.at(-1) as number, 2)}`,
    );
  }

  const overheadRows: string[] = [];
  if (baseline) {
    // Two interleaved rounds per build at 16 clients (both servers have room to queue them all).
    const rounds: Record<'this' | 'baseline', Measurement[]> = { this: [], baseline: [] };
    for (let round = 0; round < 2; round++) {
      for (const [name, target] of [
        ['baseline', baseline.url],
        ['this', url],
      ] as const) {
        rounds[name].push(
          await measure(
            OVERHEAD_CALLS,
            16,
            async (id) => (await post(target, snippet(id))).run_result.stdout,
          ),
        );
      }
    }
    // Throughput over both rounds (the harmonic mean: total calls over total time); the worse round's p50.
    const total = (runs: Measurement[]): Measurement => ({
      perSecond: runs.length / runs.reduce((sum, run) => sum + 1 / run.perSecond, 0),
      p50: Math.max(...runs.map((run) => run.p50)),
      p95: Math.max(...runs.map((run) => run.p95)),
      lost: runs.reduce((sum, run) => sum + run.lost, 0),
    });
    const [a, b] = [total(rounds.baseline), total(rounds.this)];
    overheadRows.push(
      `| 16 | 2 x ${OVERHEAD_CALLS} | ${fmt(a.perSecond)} | ${fmt(a.p50)} | ${fmt(b.perSecond)} | ${fmt(b.p50)} | ` +
        `**${fmt(b.perSecond / a.perSecond, 2)}** | ${a.lost} / ${b.lost} |`,
    );
    console.error(overheadRows.at(-1));
  }

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
      `${WORKERS} workers; arms interleaved, ${ROUNDS} rounds per number of calls at once.`,
      '',
      '| calls at once | round | calls | in-process exec/s | in-process p50 / p95 ms | verl client exec/s | verl client p50 / p95 ms (per call, retries included) | verl / in-process | lost (in-process / verl) | CPU ms per call (in-process host / server / verl client) | server peak MB (RSS / PSS with workers) |',
      '|---|---|---|---|---|---|---|---|---|---|---|',
      ...loadRows,
      '',
      `Server memory at rest (RSS; PSS with its ${WORKERS} workers): ${fmt(atRest.nodeRssMb)} MB / ` +
        `${fmt(atRest.treePssMb)} MB.`,
      ...(overheadRows.length > 0
        ? [
            '',
            '| clients | requests | baseline exec/s | baseline p50 ms | this build exec/s | this build p50 ms | this / baseline | lost (baseline / this) |',
            '|---|---|---|---|---|---|---|---|',
            ...overheadRows,
          ]
        : []),
      '',
      `Hostile cases over HTTP (status per case): ${hostile.join('; ')}.`,
      `Afterwards: /run_code ${after.run_result.stdout === expected(7) ? 'answers right' : 'WRONG'}, /health ${health.status}.`,
    ].join('\n'),
  );
} finally {
  server.kill('SIGTERM');
  baseline?.child.kill('SIGTERM');
  await pool.close();
}
