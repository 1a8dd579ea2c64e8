// Throughput and latency of the local sandbox: (a) the naive baseline, bubblewrap plus a fresh python3 per call
// (mode 'spawn', same limits), against (b) the pre-forked pool (mode 'fork'), at concurrency 1, 2 and 8, for
// arithmetic and sympy snippets, and (c) the pyodide backend (a fresh WebAssembly interpreter per call, from a
// snapshot with sympy imported, loaded by a process that lives on for the next call; `workers` = the concurrency,
// and each call is issued as soon as the last returns, so a call waits for its interpreter's load); the ceiling is unisolated in-process exec() in
// persistent interpreters that already imported sympy. Also: pool start time and memory per pool worker. Run from
// the repository root:
//   pnpm bench packages/sandbox/bench/throughput.ts
// Knobs: BENCH_CONCURRENCY (1,2,8), BENCH_ROUNDS (1: each cell's arms measured that many times, interleaved, in
// alternating order; the table shows medians); SANDBOX_BEFORE=<another build's src/index.ts> adds that build's pool
// as a "before" arm of the same run (e.g. a `git archive` of an earlier commit's packages/sandbox); the "before" and
// "pool" arms then run in child processes of their own, each importing only its build (support/build-arm.ts), and
// the run fails unless each arm imported the build it names.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { ExecRequest, LocalSandboxOptions, Sandbox } from '@taorl/sandbox';
import { type Arm, checkArms, descendants, isArmChild, serveArm, startArm } from './support/build-arm';

type CreateSandbox = (options: LocalSandboxOptions) => Promise<Sandbox>;
const BEFORE_MODULE = process.env.SANDBOX_BEFORE;
// This checkout's build, in the parent only: an arm's child must import no build but its own.
const { createSandbox } = isArmChild
  ? { createSandbox: () => Promise.reject(new Error('an arm uses the build it was given')) }
  : await import('@taorl/sandbox');

const SNIPPETS = {
  arithmetic: 'total = 0\nfor i in range(1, 2001):\n    total += i * i % 7\nprint(total)',
  sympy: 'import sympy as sp\nx = sp.Symbol("x")\nprint(sp.factor(x**6 - 1), sp.integrate(sp.sin(x)**2, x))',
} as const;
type Workload = keyof typeof SNIPPETS;
const CONCURRENCY = (process.env.BENCH_CONCURRENCY ?? '1,2,8').split(',').map(Number);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);
const CALLS: Record<'baseline' | 'pyodide' | 'pool' | 'ceiling', Record<Workload, number>> = {
  baseline: { arithmetic: 24, sympy: 12 },
  pyodide: { arithmetic: 40, sympy: 24 },
  pool: { arithmetic: 200, sympy: 100 },
  ceiling: { arithmetic: 400, sympy: 200 },
};

interface Measurement {
  perSecond: number;
  p50: number;
  p95: number;
}

function quantile(sorted: number[], q: number): number {
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[index] as number;
}

/** Runs `calls` executions with exactly `concurrency` in flight; latency excludes waiting for a free lane. */
async function measure(
  calls: number,
  concurrency: number,
  execute: (lane: number) => Promise<void>,
): Promise<Measurement> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async (_, lane) => {
      while (next < calls) {
        next++;
        const t0 = performance.now();
        await execute(lane);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { perSecond: calls / seconds, p50: quantile(latencies, 0.5), p95: quantile(latencies, 0.95) };
}

async function sandboxRun(
  mode: 'fork' | 'spawn',
  workload: Workload,
  concurrency: number,
  create: CreateSandbox = createSandbox,
): Promise<Measurement> {
  const sandbox = await create({ mode, workers: concurrency, limits: { timeoutMs: 30_000 } });
  const request: ExecRequest = { code: SNIPPETS[workload] };
  try {
    const check = await sandbox.run(request);
    if (check.status !== 'ok') throw new Error(`${mode} ${workload}: ${check.status} ${check.stderr}`);
    return await measure(CALLS[mode === 'fork' ? 'pool' : 'baseline'][workload], concurrency, async () => {
      const result = await sandbox.run(request);
      if (result.status !== 'ok') throw new Error(`${mode} ${workload}: ${result.status}`);
    });
  } finally {
    await sandbox.close();
  }
}

// One pyodide sandbox per concurrency, kept for both snippets: making its snapshot (sympy imported) takes minutes
// on a loaded machine, and no call sees another's state anyway (a fresh interpreter per call).
const pyodideSandboxes = new Map<number, Promise<Sandbox>>();

async function pyodideRun(workload: Workload, concurrency: number): Promise<Measurement> {
  let started = pyodideSandboxes.get(concurrency);
  if (started === undefined) {
    started = createSandbox({ backend: 'pyodide', workers: concurrency, limits: { timeoutMs: 60_000 } });
    pyodideSandboxes.set(concurrency, started);
  }
  const sandbox = await started;
  const request: ExecRequest = { code: SNIPPETS[workload] };
  const check = await sandbox.run(request);
  if (check.status !== 'ok') throw new Error(`pyodide ${workload}: ${check.status} ${check.stderr}`);
  return measure(CALLS.pyodide[workload], concurrency, async () => {
    const result = await sandbox.run(request);
    if (result.status !== 'ok') throw new Error(`pyodide ${workload}: ${result.status}`);
  });
}

// The ceiling: persistent unisolated interpreters exec() each snippet in a fresh namespace, no fork, no limits.
const CEILING_LOOP = String.raw`
import json, sys, io, contextlib, sympy, numpy
for line in sys.stdin:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(json.loads(line), {"__name__": "__main__"})
    sys.stdout.write(json.dumps(out.getvalue()) + "\n")
    sys.stdout.flush()
`;

async function ceilingRun(workload: Workload, concurrency: number): Promise<Measurement> {
  const lanes = Array.from({ length: concurrency }, () => {
    const child = spawn('/usr/bin/python3', ['-c', CEILING_LOOP], { stdio: ['pipe', 'pipe', 'inherit'] });
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    return { child, lines };
  });
  const call = async (lane: number) => {
    const { child, lines } = lanes[lane] as (typeof lanes)[number];
    child.stdin.write(`${JSON.stringify(SNIPPETS[workload])}\n`);
    const answer = await lines.next();
    if (answer.done) throw new Error('ceiling interpreter exited');
  };
  await Promise.all(lanes.map((_, lane) => call(lane)));
  try {
    return await measure(CALLS.ceiling[workload], concurrency, call);
  } finally {
    for (const { child } of lanes) child.kill();
  }
}

function memoryKb(pid: number): { rss: number; pss: number } {
  const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  const field = (name: string) =>
    Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(rollup)?.[1] ?? Number.NaN);
  return { rss: field('Rss'), pss: field('Pss') };
}

async function poolFootprint(): Promise<{
  startMs: number;
  rssMb: number;
  pssMb: number;
  processes: number;
}> {
  const t0 = performance.now();
  const sandbox = await createSandbox({ workers: 2 });
  const startMs = performance.now() - t0;
  try {
    let rss = 0;
    let pss = 0;
    let processes = 0;
    for (const bwrap of sandbox.workerPids()) {
      for (const pid of [bwrap, ...descendants(bwrap)]) {
        const memory = memoryKb(pid);
        rss += memory.rss;
        pss += memory.pss;
        processes++;
      }
    }
    const workers = sandbox.workerPids().length;
    return {
      startMs,
      rssMb: rss / 1024 / workers,
      pssMb: pss / 1024 / workers,
      processes: processes / workers,
    };
  } finally {
    await sandbox.close();
  }
}

const fmt = (value: number, digits = 1) => value.toFixed(digits);
function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}
/** The median of each field over the rounds. */
const medianOf = (rounds: readonly Measurement[]): Measurement => ({
  perSecond: median(rounds.map((m) => m.perSecond)),
  p50: median(rounds.map((m) => m.p50)),
  p95: median(rounds.map((m) => m.p95)),
});
interface Cell {
  workload: Workload;
  concurrency: number;
}
// With a "before" build, its pool and this build's are measured in child processes, one build each.
if (isArmChild) {
  await serveArm((create, { workload, concurrency }: Cell) =>
    sandboxRun('fork', workload, concurrency, create as CreateSandbox),
  );
} else {
  const builds: Arm<Cell, Measurement>[] | null =
    BEFORE_MODULE === undefined
      ? null
      : [
          await startArm('before', import.meta.filename, BEFORE_MODULE),
          await startArm('pool', import.meta.filename, '@taorl/sandbox'),
        ];
  try {
    await compare(builds);
  } finally {
    for (const arm of builds ?? []) arm.close();
  }
}

async function compare(builds: Arm<Cell, Measurement>[] | null): Promise<void> {
  type ArmName = 'baseline' | 'pyodide' | 'before' | 'pool' | 'ceiling';
  const arms: ArmName[] = [
    'baseline',
    'pyodide',
    ...(BEFORE_MODULE === undefined ? [] : (['before'] as ArmName[])),
    'pool',
    'ceiling',
  ];
  const measureArm = (arm: ArmName, workload: Workload, concurrency: number): Promise<Measurement> => {
    if (arm === 'baseline') return sandboxRun('spawn', workload, concurrency);
    if (arm === 'pyodide') return pyodideRun(workload, concurrency);
    if (arm === 'ceiling') return ceilingRun(workload, concurrency);
    const build = builds?.[arm === 'before' ? 0 : 1];
    return build === undefined
      ? sandboxRun('fork', workload, concurrency)
      : build.call({ workload, concurrency });
  };
  const rows: string[] = [];
  for (const workload of ['arithmetic', 'sympy'] as Workload[]) {
    for (const concurrency of CONCURRENCY) {
      const runs = Object.fromEntries(arms.map((arm) => [arm, [] as Measurement[]])) as Record<
        ArmName,
        Measurement[]
      >;
      for (let round = 0; round < ROUNDS; round++) {
        // Alternating order, so that a change in the machine's load does not fall on one arm only.
        for (const arm of round % 2 === 0 ? arms : [...arms].reverse()) {
          const measured = await measureArm(arm, workload, concurrency);
          runs[arm].push(measured);
          console.error(
            `  ${workload}, concurrency ${concurrency}, round ${round + 1}, ${arm}: ${fmt(measured.perSecond)} exec/s, ` +
              `p50 ${fmt(measured.p50)} ms`,
          );
        }
      }
      const ratios = (arm: ArmName, over: ArmName) =>
        median(runs[arm].map((m, round) => m.perSecond / (runs[over][round] as Measurement).perSecond));
      const [baseline, pyodide, pool, ceiling] = [
        medianOf(runs.baseline),
        medianOf(runs.pyodide),
        medianOf(runs.pool),
        medianOf(runs.ceiling),
      ];
      const before =
        BEFORE_MODULE === undefined
          ? ''
          : (() => {
              const measured = medianOf(runs.before);
              return (
                `${fmt(measured.perSecond)} | ${fmt(measured.p50)} / ${fmt(measured.p95)} | ` +
                `**${fmt(ratios('before', 'baseline'))}x** | `
              );
            })();
      const versusBefore = BEFORE_MODULE === undefined ? '' : ` **${fmt(ratios('pool', 'before'), 2)}x** |`;
      rows.push(
        `| ${workload} | ${concurrency} | ${fmt(baseline.perSecond)} | ${fmt(baseline.p50)} / ${fmt(baseline.p95)} | ` +
          `${fmt(pyodide.perSecond, 2)} | ${fmt(pyodide.p50)} / ${fmt(pyodide.p95)} | ` +
          `**${fmt(ratios('pyodide', 'baseline'), 2)}x** | ` +
          before +
          `${fmt(pool.perSecond)} | ${fmt(pool.p50)} / ${fmt(pool.p95)} | **${fmt(ratios('pool', 'baseline'))}x** |` +
          versusBefore +
          ` ${fmt(ceiling.perSecond)} | ${fmt(ceiling.p50, 2)} / ${fmt(ceiling.p95, 2)} |`,
      );
      console.error(rows.at(-1));
    }
  }
  for (const sandbox of pyodideSandboxes.values()) await (await sandbox).close();
  if (builds !== null) checkArms(builds);
  const footprint = await poolFootprint();
  console.log(
    [
      BEFORE_MODULE === undefined
        ? '| snippet | concurrency | baseline exec/s | baseline p50 / p95 ms | pyodide exec/s | pyodide p50 / p95 ms | pyodide / baseline | pool exec/s | pool p50 / p95 ms | pool / baseline | ceiling exec/s | ceiling p50 / p95 ms |'
        : '| snippet | concurrency | baseline exec/s | baseline p50 / p95 ms | pyodide exec/s | pyodide p50 / p95 ms | pyodide / baseline | before exec/s | before p50 / p95 ms | before / baseline | pool exec/s | pool p50 / p95 ms | pool / baseline | pool / before | ceiling exec/s | ceiling p50 / p95 ms |',
      `|${'---|'.repeat(BEFORE_MODULE === undefined ? 12 : 16)}`,
      ...rows,
      '',
      `Medians over ${ROUNDS} round(s) per cell; the ratios are medians of the per-round ratios.`,
      '',
      `Pool start (2 workers, sympy + numpy preloaded): ${fmt(footprint.startMs, 0)} ms. Per worker ` +
        `(${fmt(footprint.processes, 0)} processes: bwrap, its init, the Python worker, its zygote and the children it prepared for the next requests): RSS ${fmt(footprint.rssMb)} MB, ` +
        `PSS ${fmt(footprint.pssMb)} MB.`,
    ].join('\n'),
  );
}
