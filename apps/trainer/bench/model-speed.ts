// Speed of the embedded tiny model: training-step tokens/s and GFLOP/s (6 x parameters x tokens / time) against
// the same backend's matMul ceiling measured in this run, and KV-cache sampling tokens/s at batch 1, 16, 64.
// Run: pnpm bench apps/trainer/bench/model-speed.ts [wasm] [cpu]
//
// Other processes share the 2 cores, so every timing is taken twice: wall-clock, and the CPU time of this
// process (user + system; tfjs runs on this one thread), which preemption by other processes does not inflate.
// Each training step is paired with a ceiling matMul measured right after it; shares are medians of the pairs.
import { loadavg } from 'node:os';
import { ByteTokenizer } from '@taorl/data';
import { type BackendChoice, initBackend } from '@taorl/grpo';
import type { TransformerPolicy } from '@taorl/model';
import { createTinyPolicy } from '@taorl/model/node';
import * as tf from '@tensorflow/tfjs';

interface Sizes {
  ceilingSide: number;
  trainBatch: number;
  trainSteps: number;
  newTokens: number;
}

// The cpu backend is ~100x slower than wasm: smaller measurements keep its run to minutes.
const SIZES: Record<string, Sizes> = {
  wasm: { ceilingSide: 1024, trainBatch: 16, trainSteps: 7, newTokens: 96 },
  cpu: { ceilingSide: 512, trainBatch: 4, trainSteps: 3, newTokens: 12 },
};
const SEQUENCE = 128;
const PROMPT = 24;

interface Timing {
  wall: number;
  cpu: number;
}

async function timed(fn: () => unknown): Promise<Timing> {
  const wall = performance.now();
  const cpu = process.cpuUsage();
  await fn();
  const used = process.cpuUsage(cpu);
  return { wall: (performance.now() - wall) / 1000, cpu: (used.user + used.system) / 1e6 };
}

const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)]!;

/** Times one 2-D fp32 matMul of fixed operands (made once, so timing it does not churn the wasm heap). */
function matMulTimer(m: number, k: number, n: number): { time: () => Promise<Timing>; flops: number } {
  const a = tf.randomNormal([m, k]);
  const b = tf.randomNormal([k, n]);
  const once = () => {
    const c = tf.matMul(a, b);
    c.dataSync();
    c.dispose();
  };
  once();
  return { time: () => timed(once), flops: 2 * m * k * n };
}

function trainingStep(
  policy: TransformerPolicy,
  optimizer: tf.Optimizer,
  batch: tf.Tensor2D,
  targets: tf.Tensor2D,
) {
  const loss = optimizer.minimize(
    () => {
      const logits = tf.reshape(policy.logits(batch), [-1, policy.vocabSize]);
      return tf.neg(tf.mean(tf.sum(tf.mul(targets, tf.logSoftmax(logits)), -1))) as tf.Scalar;
    },
    true,
    policy.trainableVariables(),
  )!;
  loss.dataSync();
  loss.dispose();
}

const gflops = (flops: number, s: number) => (flops / s / 1e9).toFixed(2);

async function run(backend: BackendChoice): Promise<void> {
  await initBackend({ prefer: backend });
  const sizes = SIZES[backend]!;
  const vocabSize = new ByteTokenizer().vocabSize;
  const policy = createTinyPolicy({ vocabSize, seed: 0 });
  const parameters = policy.trainableVariables().reduce((n, v) => n + v.size, 0);
  console.log(
    `\n## ${backend}: ${parameters} parameters, vocab ${vocabSize}, load average ${loadavg()[0]!.toFixed(1)}`,
  );
  const side = sizes.ceilingSide;
  const tokens = sizes.trainBatch * SEQUENCE;
  const stepFlops = 6 * parameters * tokens;
  const shapedTimer = matMulTimer(tokens, 128, 768);
  const shaped = await shapedTimer.time();
  console.log(
    `matMul [${tokens}x128]x[128x768] (the MLP's shape): ${gflops(shapedTimer.flops, shaped.wall)} GFLOP/s wall, ` +
      `${gflops(shapedTimer.flops, shaped.cpu)} per CPU second`,
  );
  const ceilingTimer = matMulTimer(side, side, side);

  const ids = Array.from({ length: sizes.trainBatch * (SEQUENCE + 1) }, (_, i) => (i * 7919) % 256);
  const batch = tf.tensor2d(
    ids.filter((_, i) => i % (SEQUENCE + 1) !== SEQUENCE),
    [sizes.trainBatch, SEQUENCE],
    'int32',
  );
  const targetIds = tf.tensor1d(
    ids.filter((_, i) => i % (SEQUENCE + 1) !== 0),
    'int32',
  );
  const targets = tf.tidy(() =>
    tf.cast(tf.oneHot(targetIds, vocabSize, 1, 0, 'int32'), 'float32'),
  ) as tf.Tensor2D;
  const optimizer = tf.train.adam(1e-3);
  trainingStep(policy, optimizer, batch, targets);
  const before = tf.memory().numTensors;
  const pairs: { step: Timing; ceiling: Timing }[] = [];
  for (let i = 0; i < sizes.trainSteps; i++) {
    const step = await timed(() => trainingStep(policy, optimizer, batch, targets));
    pairs.push({ step, ceiling: await ceilingTimer.time() });
  }
  for (const clock of ['wall', 'cpu'] as const) {
    const step = median(pairs.map((p) => p.step[clock]));
    const ceiling = median(pairs.map((p) => ceilingTimer.flops / p.ceiling[clock] / 1e9));
    const share = median(
      pairs.map((p) => stepFlops / p.step[clock] / (ceilingTimer.flops / p.ceiling[clock])),
    );
    console.log(
      `${clock.padEnd(4)}: ceiling ${side}^3 ${ceiling.toFixed(2)} GFLOP/s; training step (batch ` +
        `${sizes.trainBatch} x ${SEQUENCE}) ${step.toFixed(3)} s, ${(tokens / step).toFixed(0)} tokens/s, ` +
        `${gflops(stepFlops, step)} GFLOP/s = ${(100 * share).toFixed(0)}% of the ceiling`,
    );
  }
  console.log(`tensors before/after the steps: ${before}/${tf.memory().numTensors}`);
  tf.dispose([batch, targetIds, targets]);
  optimizer.dispose();

  for (const batchSize of [1, 16, 64]) {
    const prompts = Array.from({ length: batchSize }, (_, b) =>
      Int32Array.from({ length: PROMPT }, (_, i) => (b * 31 + i * 17) % 256),
    );
    const sampling = { maxNewTokens: sizes.newTokens, temperature: 1, seed: 1 };
    await policy.generate(prompts, { ...sampling, maxNewTokens: 2 });
    const runs: Timing[] = [];
    let generated = 0;
    for (let r = 0; r < 2; r++) {
      runs.push(
        await timed(async () => {
          const out = await policy.generate(prompts, sampling);
          generated = out.reduce((n, o) => n + o.tokens.length, 0);
        }),
      );
    }
    const wall = Math.min(...runs.map((r) => r.wall));
    const cpu = Math.min(...runs.map((r) => r.cpu));
    console.log(
      `sampling batch ${batchSize}, prompt ${PROMPT} + ${sizes.newTokens} new: ${(generated / wall).toFixed(0)} ` +
        `tokens/s wall, ${(generated / cpu).toFixed(0)} per CPU second`,
    );
  }
  policy.dispose();
  console.log(`load average at the end: ${loadavg()[0]!.toFixed(1)}`);
}

const requested = process.argv.slice(2) as BackendChoice[];
for (const backend of requested.length > 0 ? requested : (['wasm', 'cpu'] as BackendChoice[]))
  await run(backend);
