/**
 * Data-parallel SFT (workers, the pool's SFT shards): steps per second with 1 and with 2 gradient shards on the demo's model and data
 * (the tiny model, batches of 16 real arith-tool traces), measured in the same run. Both trainers start from the
 * same weights and take the same batches, interleaved (their order alternating each round), so both see the same
 * machine load; the weights they end with are compared as a check that both computed the same steps. The first
 * step of each, on the 16 longest traces, is timed apart: it includes starting the worker threads and growing each
 * thread's wasm memory to the largest batch (a one-time cost of 1-3 s per thread that would otherwise land on
 * whichever timed step first needs more memory).
 *
 * Other processes' load changes wall times, and with both cores busy an extra thread cannot show its gain. The
 * CPU time of each thread (Linux /proc/self/task/<id>/schedstat) barely depends on that load, so the idle-machine
 * speed-up is also estimated from it: the 1-worker step's CPU time over the largest of the 2-worker step's main
 * thread and worker threads' CPU times (an upper bound: it ignores waiting for the slower worker).
 *
 * `grouped` takes length-grouped batches (sft.batching: length) instead of random ones: their sequences are of
 * similar length, so sharding saves no padding and the ratio is the parallelism alone.
 *
 *   pnpm bench apps/trainer/bench/sft-data-parallel.ts [rounds=12] [random|grouped]
 */
import { readdirSync, readFileSync } from 'node:fs';
import { TransformerPolicy } from '@taorl/model';
import { parseConfig } from '../src/index.js';
import { openSession } from '../src/session/session.js';
import { balancedShards } from '../src/sft/batch-shards.js';
import { epochStream, lengthGroupedBatches, streamBatches } from '../src/util/batching.js';
import { PolicyWorkers } from '../src/workers/policy-workers.js';
import { arithSftTraces, sftExampleOf, sftTrainer } from '../src/workflows/sft-run.js';

const rounds = Number(process.argv[2] ?? 12);
const grouped = process.argv[3] === 'grouped';
const config = parseConfig(
  [
    'seed: 1',
    'backend: wasm',
    'outDir: /tmp/taorl-bench',
    'tool: {sandbox: {name: local, workers: 2, preload: []}, observationChars: 256}',
    'sft: {batchSize: 16, steps: 780, learningRate: 3.0e-3, warmupFraction: 0.05}',
  ].join('\n'),
  'bench',
);
const session = await openSession(config, 'bench');
const examples = (await arithSftTraces(session, 512, true)).map(sftExampleOf);
const meanTokens = examples.reduce((s, e) => s + e.inputIds.length, 0) / examples.length;

const trainerWith = (policy: TransformerPolicy, workers: PolicyWorkers | null) =>
  sftTrainer({ ...session, policy, workers });
const policies = { 1: session.policy, 2: new TransformerPolicy(session.policy.toCheckpoint()) };
const pool = new PolicyWorkers(policies[2], 2, { kind: 'byte' });
const trainers = { 1: trainerWith(policies[1], null), 2: trainerWith(policies[2], pool) };
const stream = epochStream(examples.length, config.seed, 'bench');
const { batchSize } = config.sft;
const batchAt = grouped
  ? lengthGroupedBatches(stream, (item) => examples[item]!.inputIds.length, batchSize, 8, config.seed)
  : streamBatches(stream, batchSize);

const longest = [...examples].sort((a, b) => b.inputIds.length - a.inputIds.length).slice(0, batchSize);

// Padded tokens a step computes: one batch padded to its longest trace, or each shard padded to its own longest.
const padded = { full: [] as number[], largestShard: [] as number[], shards: [] as number[] };
const paddedTokens = (lengths: number[]) => lengths.length * Math.max(...lengths);

/** Milliseconds the threads ran on a CPU (schedstat's first field, in ns). */
const cpuMs = (threads: readonly string[]) =>
  threads.reduce(
    (sum, id) => sum + Number(readFileSync(`/proc/self/task/${id}/schedstat`, 'utf8').split(' ')[0]) / 1e6,
    0,
  );
const mainThread = [String(process.pid)];
const threadsBefore = new Set(readdirSync('/proc/self/task'));
let workerThreads: string[] = [];
const cpu = { 1: [] as number[], 2: [] as number[], worker: [] as number[] };

const firstStepMs = { 1: 0, 2: 0 };
const stepMs = { 1: [] as number[], 2: [] as number[] };
for (let round = 0; round <= rounds; round++) {
  const batch = round === 0 ? longest : batchAt(round).map((item) => examples[item]!);
  const lengths = batch.map((example) => example.inputIds.length);
  const shardSizes = balancedShards(lengths, (length) => length, 2).map(paddedTokens);
  if (round > 0) {
    padded.full.push(paddedTokens(lengths));
    padded.largestShard.push(Math.max(...shardSizes));
    padded.shards.push(shardSizes.reduce((s, x) => s + x, 0));
  }
  for (const workers of round % 2 === 0 ? ([1, 2] as const) : ([2, 1] as const)) {
    const [mainCpu, threadCpu] = [cpuMs(mainThread), workerThreads.map((id) => cpuMs([id]))];
    const started = performance.now();
    await trainers[workers].step(batch);
    const ms = performance.now() - started;
    if (round === 0) firstStepMs[workers] = ms;
    else {
      stepMs[workers].push(ms);
      cpu[workers].push(cpuMs(mainThread) - mainCpu);
      if (workers === 2) {
        cpu.worker.push(Math.max(...workerThreads.map((id, i) => cpuMs([id]) - threadCpu[i]!)));
      }
    }
  }
  // The threads the 2-worker pool started (any other new thread idles).
  if (round === 0) workerThreads = readdirSync('/proc/self/task').filter((id) => !threadsBefore.has(id));
}
trainers[1].dispose();
trainers[2].dispose();
await pool.dispose();

const flat = (policy: TransformerPolicy) =>
  policy.trainableVariables().flatMap((v) => Array.from(v.dataSync() as Float32Array));
const [w1, w2] = [flat(policies[1]), flat(policies[2])];
const norm = (xs: number[]) => Math.sqrt(xs.reduce((s, x) => s + x * x, 0));
const weightDifference = norm(w1.map((w, i) => w - w2[i]!)) / norm(w1);
policies[2].dispose();
await session.close();

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
console.log(
  `backend ${session.backend}; ${examples.length} traces, mean ${meanTokens.toFixed(0)} tokens; ${grouped ? 'length-grouped' : 'random'} batches of ${batchSize}; ${rounds} timed steps each`,
);
for (const workers of [1, 2] as const) {
  const ms = stepMs[workers];
  console.log(
    `workers=${workers}: median ${median(ms).toFixed(0)} ms/step, mean ${mean(ms).toFixed(0)} ms = ${(1000 / mean(ms)).toFixed(2)} steps/s; first step ${firstStepMs[workers].toFixed(0)} ms`,
  );
}
console.log(
  `speed-up (steps/s, 2 vs 1 worker): ${(mean(stepMs[1]) / mean(stepMs[2])).toFixed(2)}x over the run; median of the per-batch ratios ${median(stepMs[1].map((ms, i) => ms / stepMs[2][i]!)).toFixed(2)}x`,
);
const [cpu1, cpu2, cpuWorker] = [mean(cpu[1]), mean(cpu[2]), mean(cpu.worker)];
console.log(
  `CPU per step (mean): 1 worker ${cpu1.toFixed(0)} ms; 2 workers: main thread ${cpu2.toFixed(0)} ms, busier worker thread ${cpuWorker.toFixed(0)} ms; idle-machine estimate ${(cpu1 / Math.max(cpu2, cpuWorker)).toFixed(2)}x`,
);
console.log(
  `padded tokens per step (mean): whole batch ${mean(padded.full).toFixed(0)}; 2 shards ${mean(padded.shards).toFixed(0)} in all, the larger ${mean(padded.largestShard).toFixed(0)}`,
);
console.log(`relative weight difference after ${rounds + 1} steps: ${weightDifference.toExponential(1)}`);
