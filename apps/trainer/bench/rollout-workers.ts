/**
 * The worker pool generating rollouts (workers): RL step wall time and held-out evaluation throughput with 1 worker (the main
 * thread generates) and with 2 worker threads, side by side in one run, on the demo's config (apps/trainer/configs/
 * demo.yaml: 8 x 8 rollouts, 2 lanes, 256 response tokens, temperature 0.7, real tool calls in the sandbox).
 *
 * Start from a trained policy so that rollouts make tool calls as in the demo's RL phase: the demo saves its SFT
 * policy as <outDir>/sft-policy (runs/demo/sft-policy after `taorl demo`). Without one, a freshly initialised
 * model generates to the length budget without tool calls.
 *
 * Two policies start from the same weights: one rolls out on the main thread, the other on 2 worker threads. They
 * evaluate the same held-out problems and take the same RL steps, interleaved (the order alternating each round)
 * so both see the same machine load, and their results are compared: they must be identical (docs/trainer.md,
 * determinism). A first evaluation of the same problems by each is a warm-up: it starts the worker threads and grows
 * each thread's wasm memory to what the evaluation needs. Counted, that growth (hundreds of MB per thread, a page
 * fault per 4 KB page) made the first measured round the costlier; the RL steps still grow it when their sequences
 * get longer than before. Each thread's minor page faults are recorded (/proc/self/task/<id>/stat).
 *
 * Besides wall time, each thread's CPU time (Linux /proc/self/task/<id>/schedstat) is recorded, which the other
 * processes' load barely changes. "Idle estimate" is the 1-worker CPU time over the 2-worker run's critical path
 * estimated from CPU: the main thread's CPU (scoring, tool-call bookkeeping and, with 1 worker, generation and the
 * update, assumed not to overlap the workers' work) plus the busier worker thread's. To tell idle workers from
 * busy cores: the time each thread waited on a run queue for a CPU (schedstat's second field), the CPU of the
 * sandbox's processes (which run the tool calls outside these threads, on the same cores), the CPU of this
 * process's other threads (V8's garbage collection and compilation, libuv), the whole machine's busy and idle CPU
 * time (/proc/stat: idle time with work waiting means the cores were not the limit), and, with 2 workers, the share
 * of the wall time with 2, 1 or no generate calls in flight.
 *
 *   pnpm bench apps/trainer/bench/rollout-workers.ts [policy folder] [rl steps=6] [eval problems=64] [field=value...]
 *
 * Config fields after the first three arguments override demo.yaml's, as `--set` does (e.g. rl.microBatchRows=8).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TransformerPolicy } from '@taorl/model';
import type { RlStepMetrics } from '@taorl/rl';
import { rlStep } from '@taorl/rl';
import type { RolloutPolicy, SamplingParams } from '@taorl/rollout';
import { loadConfig } from '../src/config/load-config.js';
import { problemSource } from '../src/session/problem-source.js';
import { openSession, type Session } from '../src/session/session.js';
import { presetPath } from '../src/util/shipped.js';
import { PolicyWorkers } from '../src/workers/policy-workers.js';
import { evaluate } from '../src/workflows/evaluate.js';
import { rlContext } from '../src/workflows/rl-run.js';

const from = process.argv[2];
const rlSteps = Number(process.argv[3] ?? 6);
const evalProblems = Number(process.argv[4] ?? 64);
const overrides = [
  `outDir=${join(tmpdir(), 'taorl-bench-rollout-workers')}`,
  'workers=1',
  ...(from === undefined || from === '' ? [] : ['model.source=embedded', `model.path=${from}`]),
  ...process.argv.slice(5),
];
const config = loadConfig(presetPath('demo'), overrides);
const session = await openSession(config, 'demo.yaml');
const problems = await problemSource(session);
const test = problems.test();

/**
 * The 2-worker arm's generate calls in flight over time: the wall time with 2 calls running (both workers busy),
 * 1 (one idle) or none (both idle: every lane waits for tool calls, or the rollout is between batches).
 */
class Occupancy implements RolloutPolicy {
  readonly concurrentGenerate = true;
  readonly vocabSize: number;
  readonly maxSequenceLength: number;
  /** Milliseconds with 0, 1, 2 or more calls in flight since the last `reset`. */
  ms = [0, 0, 0];
  private inFlight = 0;
  private since = performance.now();
  constructor(private readonly inner: PolicyWorkers) {
    this.vocabSize = inner.vocabSize;
    this.maxSequenceLength = inner.maxSequenceLength;
  }
  beforeRollout(): void {
    this.inner.beforeRollout();
  }
  async generate(prompts: readonly Int32Array[], sampling: SamplingParams) {
    this.change(+1);
    try {
      return await this.inner.generate(prompts, sampling);
    } finally {
      this.change(-1);
    }
  }
  reset(): void {
    this.ms = [0, 0, 0];
    this.since = performance.now();
  }
  /** Closes the current interval: the time so far goes to the current number of calls in flight. */
  read(): number[] {
    this.change(0);
    return this.ms;
  }
  private change(by: number): void {
    const now = performance.now();
    this.ms[Math.min(this.inFlight, 2)]! += now - this.since;
    this.since = now;
    this.inFlight += by;
  }
}

/** The two arms: the session's policy rolling out on the main thread, and a copy rolling out on 2 workers. */
const copy = new TransformerPolicy(session.policy.toCheckpoint());
const workers = new PolicyWorkers(copy, 2, { kind: 'byte' });
const occupancy = new Occupancy(workers);
const arms = {
  1: { session, rollouts: session.policy as RolloutPolicy },
  2: {
    session: { ...session, policy: copy, rolloutPolicy: occupancy, workers } as Session,
    rollouts: occupancy,
  },
};
type Arm = keyof typeof arms;

/** A thread's schedstat: milliseconds it ran on a CPU, and milliseconds it waited on a run queue for one. */
function schedMs(id: string): { cpu: number; waited: number } {
  const [cpu, waited] = readFileSync(`/proc/self/task/${id}/schedstat`, 'utf8').split(' ');
  return { cpu: Number(cpu) / 1e6, waited: Number(waited) / 1e6 };
}
/** A thread's minor page faults so far (/proc/self/task/<id>/stat field 10). */
function minorFaults(id: string): number {
  const stat = readFileSync(`/proc/self/task/${id}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[7]);
}
/**
 * CPU milliseconds of this process's descendants (the sandbox's Python workers and the children they fork per
 * tool call), ended ones included through their parents' cutime/cstime (/proc/<pid>/stat fields 14-17, in clock
 * ticks of 10 ms).
 */
function descendantsCpuMs(): number {
  const stats = new Map<number, { parent: number; ticks: number; childTicks: number }>();
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const field = (n: number) => Number(fields[n - 3]);
      stats.set(Number(pid), {
        parent: field(4),
        ticks: field(14) + field(15),
        childTicks: field(16) + field(17),
      });
    } catch {
      // The process ended while the list was read.
    }
  }
  const isDescendant = (pid: number): boolean => {
    for (let p = stats.get(pid)?.parent; p !== undefined && p > 1; p = stats.get(p)?.parent) {
      if (p === process.pid) return true;
    }
    return false;
  };
  let ticks = stats.get(process.pid)?.childTicks ?? 0;
  for (const [pid, stat] of stats) if (isDescendant(pid)) ticks += stat.ticks + stat.childTicks;
  return ticks * 10;
}
/** CPU milliseconds of every thread of this process now (V8's and libuv's helper threads included), by id. */
function allThreadsCpuMs(): Map<string, number> {
  const cpu = new Map<string, number>();
  for (const id of readdirSync('/proc/self/task')) {
    try {
      cpu.set(id, schedMs(id).cpu);
    } catch {
      // The thread ended while the list was read.
    }
  }
  return cpu;
}
/** The machine's busy and idle CPU milliseconds since boot, all cores (/proc/stat's first line, 10 ms ticks). */
function machineCpuMs(): { busy: number; idle: number } {
  const ticks = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const idle = ticks[3]! + ticks[4]!;
  return { busy: (ticks.slice(0, 8).reduce((s, x) => s + x, 0) - idle) * 10, idle: idle * 10 };
}
const mainThread = String(process.pid);
const threadsBefore = new Set(readdirSync('/proc/self/task'));
let workerThreads: string[] = [];
/**
 * CPU per thread while `work` runs (the main thread and the worker threads, known after the warm-up), the time
 * they waited for a CPU, and the CPU of the sandbox processes.
 */
async function measured<T>(work: () => Promise<T>) {
  const threads = [mainThread, ...workerThreads];
  const before = threads.map(schedMs);
  const faultsBefore = threads.map(minorFaults);
  const sandboxBefore = descendantsCpuMs();
  const allBefore = allThreadsCpuMs();
  const machineBefore = machineCpuMs();
  occupancy.reset();
  const started = performance.now();
  const result = await work();
  const wallMs = performance.now() - started;
  const machineAfter = machineCpuMs();
  const allAfter = allThreadsCpuMs();
  const after = threads.map(schedMs);
  const faults = threads.map((id, i) => minorFaults(id) - faultsBefore[i]!);
  let otherThreadsCpu = 0;
  for (const [id, cpu] of allAfter) {
    if (!threads.includes(id)) otherThreadsCpu += cpu - (allBefore.get(id) ?? 0);
  }
  const cpu = after.map((now, i) => now.cpu - before[i]!.cpu);
  const waited = after.map((now, i) => now.waited - before[i]!.waited);
  return {
    result,
    wallMs,
    mainCpu: cpu[0]!,
    workerCpu: cpu.slice(1),
    /** Run-queue wait: ready to run, no CPU free (other threads, the sandbox, other processes). */
    waited,
    faults,
    sandboxCpu: descendantsCpuMs() - sandboxBefore,
    /** This process's other threads: V8's (garbage collection, wasm compilation) and libuv's. */
    otherThreadsCpu,
    machineBusy: machineAfter.busy - machineBefore.busy,
    machineIdle: machineAfter.idle - machineBefore.idle,
    callsInFlightMs: [...occupancy.read()],
  };
}

const evaluation = (arm: Arm, items: typeof test, label: string) =>
  evaluate(arms[arm].session, items, { label, step: 0, policy: arms[arm].rollouts, quiet: true });

const heldOut = test.slice(8, 8 + evalProblems);
// Warm-up: start the worker threads, grow every thread's wasm memory.
for (const arm of [1, 2] as const) await evaluation(arm, heldOut, 'warm-up');
workerThreads = readdirSync('/proc/self/task').filter((id) => !threadsBefore.has(id));

type Sample = Awaited<ReturnType<typeof measured>>;
const evals: Record<Arm, Sample[]> = { 1: [], 2: [] };
const evalResults: Record<Arm, string[]> = { 1: [], 2: [] };
for (let round = 0; round < 2; round++) {
  for (const arm of round % 2 === 0 ? ([1, 2] as const) : ([2, 1] as const)) {
    const sample = await measured(() => evaluation(arm, heldOut, 'held-out'));
    evals[arm].push(sample);
    const { seconds, ...result } = sample.result;
    evalResults[arm].push(JSON.stringify(result));
  }
}

const contexts = {
  1: rlContext(arms[1].session, problems),
  2: rlContext(arms[2].session, problems),
};
// The update's share: each thread's CPU during the policy update, and the rows it trained on.
const updates: Record<Arm, { cpu: number[]; rows: number }[]> = { 1: [], 2: [] };
for (const arm of [1, 2] as const) {
  const { context } = contexts[arm];
  const update = context.update;
  context.update = async (batch, advantages) => {
    const threads = [mainThread, ...workerThreads];
    const before = threads.map((id) => schedMs(id).cpu);
    const stats = await update(batch, advantages);
    updates[arm].push({ cpu: threads.map((id, i) => schedMs(id).cpu - before[i]!), rows: batch.length });
    return stats;
  };
}
const steps: Record<Arm, Sample[]> = { 1: [], 2: [] };
const stepLines: Record<Arm, string[]> = { 1: [], 2: [] };
for (const arm of [1, 2] as const) await contexts[arm].context.sync.start(0);
for (let step = 1; step <= rlSteps; step++) {
  for (const arm of step % 2 === 1 ? ([1, 2] as const) : ([2, 1] as const)) {
    const sample = await measured(() => rlStep(contexts[arm].context, step));
    steps[arm].push(sample);
    const { time, tokensPerSecond, ...line } = sample.result as RlStepMetrics;
    stepLines[arm].push(JSON.stringify(line));
  }
}
for (const arm of [1, 2] as const) {
  contexts[arm].updater.dispose();
  await contexts[arm].context.sync.close();
}
await workers.dispose();
copy.dispose();
await session.close();

const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
const sum = (xs: number[]) => xs.reduce((s, x) => s + x, 0);
const perThread = (samples: Sample[]) => ({
  waited: (samples[0]?.waited ?? []).map((_, i) => mean(samples.map((s) => s.waited[i]!))),
  faults: (samples[0]?.faults ?? []).map((_, i) => mean(samples.map((s) => s.faults[i]!))),
  sandbox: mean(samples.map((s) => s.sandboxCpu)),
  other: mean(samples.map((s) => s.otherThreadsCpu)),
  busy: mean(samples.map((s) => s.machineBusy)),
  idle: mean(samples.map((s) => s.machineIdle)),
  wall: mean(samples.map((s) => s.wallMs)),
  main: mean(samples.map((s) => s.mainCpu)),
  workers: workerThreads.map((_, i) => mean(samples.map((s) => s.workerCpu[i]!))),
});
const count = (x: number) => x.toFixed(0);
const ms = (x: number) => `${count(x)} ms`;
/**
 * Everything the 1-worker arm ran on the machine's cores: this process's threads and the sandbox. The 2-worker arm
 * runs the same work, so on 2 cores its wall time is at least half of this: the 1-worker arm's wall time x 2 over
 * this bounds the ratio (the sandbox, which runs beside the main thread, already gives that arm part of a second
 * core).
 */
const oneArmCpu = (arm: ReturnType<typeof perThread>) =>
  arm.main + sum(arm.workers) + arm.sandbox + arm.other;

console.log(
  `backend ${session.backend}; policy ${from ?? 'freshly initialised (no tool calls)'}; demo config: ` +
    `${config.rl.groups}x${config.rl.groupSize} rollouts, ${config.rollout.lanes} lanes, ` +
    `${config.rollout.maxResponseTokens} response tokens; ${workerThreads.length} threads started by the workers`,
);
const report = (name: string, samples: Record<Arm, Sample[]>, unit: (wallMs: number) => string) => {
  const [one, two] = [perThread(samples[1]), perThread(samples[2])];
  const busiest = Math.max(...two.workers);
  const machine = (arm: typeof one) =>
    `other threads of this process ${ms(arm.other)}; machine (all processes) busy ${ms(arm.busy)}, idle ${ms(arm.idle)}`;
  console.log(
    `${name}, workers=1: ${unit(one.wall)}; CPU main thread ${ms(one.main)}; sandbox processes ` +
      `${ms(one.sandbox)}; waited for a CPU: main ${ms(one.waited[0]!)}; minor page faults: main ` +
      `${count(one.faults[0]!)}; ${machine(one)}`,
  );
  console.log(
    `${name}, workers=2: ${unit(two.wall)}; CPU main thread ${ms(two.main)}, worker threads ` +
      `${two.workers.map(ms).join(' / ')}; sandbox processes ${ms(two.sandbox)}; waited for a CPU: main ` +
      `${ms(two.waited[0]!)}, workers ${two.waited.slice(1).map(ms).join(' / ')}; minor page faults: main ` +
      `${count(two.faults[0]!)}, workers ${two.faults.slice(1).map(count).join(' / ')}; ${machine(two)}`,
  );
  console.log(
    `${name}: wall-time ratio ${(sum(samples[1].map((s) => s.wallMs)) / sum(samples[2].map((s) => s.wallMs))).toFixed(2)}x; ` +
      `idle estimate (CPU) ${(one.main / (two.main + busiest)).toFixed(2)}x to ${(one.main / Math.max(two.main, busiest)).toFixed(2)}x; ` +
      `at most ${((2 * one.wall) / oneArmCpu(one)).toFixed(2)}x on 2 cores unless 2 workers spend less CPU than 1`,
  );
  const inFlight = [0, 1, 2].map((k) => sum(samples[2].map((s) => s.callsInFlightMs[k]!)));
  const share = (k: number) => `${((100 * inFlight[k]!) / sum(inFlight)).toFixed(0)}%`;
  console.log(
    `${name}, workers=2: generate calls in flight 2 (both workers busy) ${share(2)}, 1 ${share(1)}, ` +
      `0 ${share(0)} of the wall time`,
  );
};
const rollouts = heldOut.length * config.eval.samples;
report(
  'evaluation',
  evals,
  (wall) => `${ms(wall)} for ${rollouts} rollouts = ${((1000 * rollouts) / wall).toFixed(1)} rollouts/s`,
);
report('RL step', steps, (wall) => `${ms(wall)}/step`);
for (const arm of [1, 2] as const) {
  const lines = steps[arm].map((s) => s.result as RlStepMetrics);
  const time = (key: keyof RlStepMetrics['time']) => ms(mean(lines.map((line) => line.time[key] ?? 0)));
  console.log(
    `workers=${arm} step time: generation ${time('generationMs')}, sandbox wait ${time('sandboxMs')}, ` +
      `scoring ${time('scoringMs')}, training ${time('trainingMs')}, weight sync ${time('weightSyncMs')}; ` +
      `tool calls/trajectory ${mean(lines.map((line) => line.toolCallsPerTrajectory)).toFixed(2)}`,
  );
}
for (const arm of [1, 2] as const) {
  const cpu = (thread: number) => ms(mean(updates[arm].map((u) => u.cpu[thread]!)));
  console.log(
    `workers=${arm} update CPU: main thread ${cpu(0)}` +
      (arm === 1 ? '' : `, worker threads ${workerThreads.map((_, i) => cpu(i + 1)).join(' / ')}`) +
      `; rows per update ${updates[arm].map((u) => u.rows).join(', ')}`,
  );
}
const same = (a: string[], b: string[]) => a.length === b.length && a.every((x, i) => x === b[i]);
console.log(
  `identical results, 1 vs 2 workers: evaluations ${same(evalResults[1], evalResults[2])}, RL step metrics ${same(stepLines[1], stepLines[2])}`,
);
