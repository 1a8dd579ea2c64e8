/**
 * Trainer step costs on the embedded task: SFT step time on real arith-tool traces, and one RL step with its time
 * split (generation, sandbox, scoring, training), against a baseline measured in the same run: the model's bare
 * forward + backward on a batch of the mean trace length (the floor any training step pays). SFT steps on random
 * and on length-grouped batches are interleaved, so both see the same machine load.
 *
 *   pnpm bench apps/trainer/bench/trainer-steps.ts
 */

import { rlStep } from '@taorl/rl';
import * as tf from '@tensorflow/tfjs';
import { MetricsWriter, parseConfig } from '../src/index.js';
import { problemSource } from '../src/session/problem-source.js';
import { openSession } from '../src/session/session.js';
import { epochStream, lengthGroupedBatches } from '../src/util/batching.js';
import { rlContext } from '../src/workflows/rl-run.js';
import { arithSftTraces, sftExampleOf, sftTrainer } from '../src/workflows/sft-run.js';

const config = parseConfig(
  [
    'seed: 1',
    'backend: wasm',
    'outDir: /tmp/taorl-bench',
    'tool: {sandbox: {name: local, workers: 2, preload: []}, observationChars: 256}',
    'rollout: {maxTurns: 3, maxResponseTokens: 160, temperature: 0.7, lanes: 2}',
    'sft: {batchSize: 16, steps: 100}',
    'rl: {groups: 8, groupSize: 8, maxGenBatches: 1, filters: [], microBatchRows: 32}',
  ].join('\n'),
  'bench',
);
const session = await openSession(config, 'bench');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const traceStart = performance.now();
const traces = await arithSftTraces(session, 256, true);
const traceSeconds = (performance.now() - traceStart) / 1000;
const examples = traces.map(sftExampleOf);
const meanTokens = examples.reduce((s, e) => s + e.inputIds.length, 0) / examples.length;

// Baseline: bare forward + backward of the policy on a [16, L] batch (no loss bookkeeping, no optimizer).
const width = Math.round(meanTokens * 1.3);
const variables = session.policy.trainableVariables();
const bare: number[] = [];
for (let i = 0; i < 6; i++) {
  const started = performance.now();
  const { value, grads } = tf.variableGrads(() => {
    const tokens = tf.tensor2d(new Int32Array(16 * width).fill(65), [16, width], 'int32');
    return tf.mean(session.policy.logits(tokens));
  }, variables);
  await value.data();
  tf.dispose([value, ...Object.values(grads)]);
  if (i > 0) bare.push(performance.now() - started);
}

// SFT steps on random batches (padded to their longest trace) and on length-grouped batches, interleaved.
const trainer = sftTrainer(session);
const stream = epochStream(examples.length, 1, 'bench');
const grouped = lengthGroupedBatches(stream, (i) => examples[i]!.inputIds.length, 16, 8, 1);
const sft = { random: [] as number[], grouped: [] as number[] };
for (let i = 0; i < 16; i++) {
  for (const kind of ['random', 'grouped'] as const) {
    const items = kind === 'grouped' ? grouped(i) : Array.from({ length: 16 }, (_, j) => stream(i * 16 + j));
    const started = performance.now();
    await trainer.step(items.map((item) => examples[item]!));
    if (i > 1) sft[kind].push(performance.now() - started);
  }
}
trainer.dispose();

const writer = new MetricsWriter('/tmp/taorl-bench-metrics.jsonl');
writer.truncateAfter(() => false);
const { context, updater } = rlContext(session, await problemSource(session));
const rl = [];
for (let step = 1; step <= 3; step++) rl.push(await rlStep(context, step));
updater.dispose();
await session.close();

const ms = (x: number) => `${x.toFixed(0)} ms`;
console.log(
  `backend ${session.backend}; traces: 256 in ${traceSeconds.toFixed(1)} s; mean sequence ${meanTokens.toFixed(0)} tokens`,
);
console.log(`bare forward+backward [16, ${width}]: median ${ms(median(bare))}`);
for (const kind of ['random', 'grouped'] as const) {
  const m = median(sft[kind]);
  console.log(
    `SFT step, ${kind} batches of 16: median ${ms(m)} = ${(m / median(bare)).toFixed(2)}x the bare pass`,
  );
}
for (const line of rl) {
  const t = line.time;
  console.log(
    `RL step ${line.step} (8x8): total ${ms(t.totalMs)}; generation ${ms(t.generationMs)}, sandbox wait ${ms(t.sandboxMs)}, ` +
      `scoring ${ms(t.scoringMs)}, training ${ms(t.trainingMs)}; ${line.tokensPerSecond.toFixed(0)} policy tokens/s; ` +
      `tool calls/traj ${line.toolCallsPerTrajectory.toFixed(2)}`,
  );
}
