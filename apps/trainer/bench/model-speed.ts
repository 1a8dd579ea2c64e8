// Speed of the embedded tiny model: training-step tokens/s and GFLOP/s (6 x parameters x tokens / time) against
// the same backend's matMul ceiling measured in this run, and KV-cache sampling tokens/s at batch 1, 16, 64.
// Run: pnpm bench apps/trainer/bench/model-speed.ts [wasm] [cpu]
// Other processes share the 2 cores: each training step is paired with a ceiling matMul measured right after it,
// sampling is the best of two runs, and the load average is printed.
import { loadavg } from 'node:os';
import { ByteTokenizer } from '@taorl/data';
import { type BackendChoice, initBackend } from '@taorl/grpo';
import * as tf from '@tensorflow/tfjs';
import { createTinyPolicy, type TransformerPolicy } from '../src/model/transformer-policy.js';

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

function seconds<T>(fn: () => T): [T, number] {
  const start = performance.now();
  const value = fn();
  return [value, (performance.now() - start) / 1000];
}

/** Best of `runs` 2-D fp32 matMuls of the given sizes, in GFLOP/s. */
function matMulGflops(m: number, k: number, n: number, runs = 3): number {
  const a = tf.randomNormal([m, k]);
  const b = tf.randomNormal([k, n]);
  tf.matMul(a, b).dispose();
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < runs; i++) {
    const [, s] = seconds(() => {
      const c = tf.matMul(a, b);
      c.dataSync();
      c.dispose();
    });
    best = Math.min(best, s);
  }
  tf.dispose([a, b]);
  return (2 * m * k * n) / best / 1e9;
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

async function run(backend: BackendChoice): Promise<void> {
  await initBackend({ prefer: backend });
  const sizes = SIZES[backend]!;
  const vocabSize = new ByteTokenizer().vocabSize;
  const policy = createTinyPolicy({ vocabSize, seed: 0 });
  const parameters = policy.trainableVariables().reduce((n, v) => n + v.size, 0);
  const side = sizes.ceilingSide;
  const ceilingBefore = matMulGflops(side, side, side);
  const modelShaped = matMulGflops(sizes.trainBatch * SEQUENCE, 128, 768);
  console.log(
    `\n## ${backend}: ${parameters} parameters, vocab ${vocabSize}, load average ${loadavg()[0]!.toFixed(1)}`,
  );

  const random = Array.from({ length: sizes.trainBatch * (SEQUENCE + 1) }, (_, i) => (i * 7919) % 256);
  const batch = tf.tensor2d(
    random.filter((_, i) => i % (SEQUENCE + 1) !== SEQUENCE),
    [sizes.trainBatch, SEQUENCE],
    'int32',
  );
  const targets = tf.tidy(() =>
    tf.cast(
      tf.oneHot(
        tf.tensor1d(
          random.filter((_, i) => i % (SEQUENCE + 1) !== 0),
          'int32',
        ),
        vocabSize,
        1,
        0,
        'int32',
      ),
      'float32',
    ),
  ) as tf.Tensor2D;
  const optimizer = tf.train.adam(1e-3);
  trainingStep(policy, optimizer, batch, targets);
  const before = tf.memory().numTensors;
  // Each step is paired with a ceiling measurement right after it, so both see the same machine load; the
  // reported ratio is the median of the per-step ratios.
  const tokens = sizes.trainBatch * SEQUENCE;
  const pairs = Array.from({ length: sizes.trainSteps }, () => {
    const [, step] = seconds(() => trainingStep(policy, optimizer, batch, targets));
    const ceiling = matMulGflops(side, side, side, 1);
    return { step, ceiling, ratio: (6 * parameters * tokens) / step / 1e9 / ceiling };
  });
  const median = (values: number[]) => values.sort((x, y) => x - y)[Math.floor(values.length / 2)]!;
  const perStep = median(pairs.map((p) => p.step));
  const ceiling = Math.max(ceilingBefore, ...pairs.map((p) => p.ceiling));
  const achieved = (6 * parameters * tokens) / perStep / 1e9;
  console.log(
    `matMul ${side}^3: best ${ceiling.toFixed(2)} GFLOP/s, median beside the steps ` +
      `${median(pairs.map((p) => p.ceiling)).toFixed(2)}; [${sizes.trainBatch * SEQUENCE}x128]x[128x768]: ` +
      `${modelShaped.toFixed(2)} GFLOP/s`,
  );
  console.log(
    `training step, batch ${sizes.trainBatch} x ${SEQUENCE}: median ${perStep.toFixed(3)} s, ` +
      `${(tokens / perStep).toFixed(0)} tokens/s, ${achieved.toFixed(2)} GFLOP/s; ` +
      `median per-step share of the ceiling ${(100 * median(pairs.map((p) => p.ratio))).toFixed(0)}% ` +
      `(of the best ceiling: ${((100 * achieved) / ceiling).toFixed(0)}%; tensors before/after: ` +
      `${before}/${tf.memory().numTensors})`,
  );
  tf.dispose([batch, targets]);
  optimizer.dispose();

  for (const batchSize of [1, 16, 64]) {
    const prompts = Array.from({ length: batchSize }, (_, b) =>
      Int32Array.from({ length: PROMPT }, (_, i) => (b * 31 + i * 17) % 256),
    );
    const sampling = { maxNewTokens: sizes.newTokens, temperature: 1, seed: 1 };
    await policy.generate(prompts, { ...sampling, maxNewTokens: 2 });
    let s = Number.POSITIVE_INFINITY;
    let generated = 0;
    for (let run = 0; run < 2; run++) {
      const start = performance.now();
      const out = await policy.generate(prompts, sampling);
      s = Math.min(s, (performance.now() - start) / 1000);
      generated = out.reduce((n, o) => n + o.tokens.length, 0);
    }
    console.log(
      `sampling batch ${batchSize}, prompt ${PROMPT} + ${sizes.newTokens} new: ${(generated / s).toFixed(0)} tokens/s (${s.toFixed(2)} s)`,
    );
  }
  policy.dispose();
  console.log(`load average at the end: ${loadavg()[0]!.toFixed(1)}`);
}

const requested = process.argv.slice(2) as BackendChoice[];
for (const backend of requested.length > 0 ? requested : (['wasm', 'cpu'] as BackendChoice[]))
  await run(backend);
