// One GrpoUpdater step on a transformer-shaped workload, on the wasm and cpu backends, with the wasm-fast
// `linear` layers against the same model built on plain tf.matMul (whose gradient uses transposed matMuls),
// and the chunked tokenLogProbsAndEntropy against a one-shot log-softmax.
// Run: pnpm bench packages/grpo/bench/update-step.ts [wasm|cpu ...]
import { cpus, loadavg } from 'node:os';
import {
  type BackendChoice,
  GrpoUpdater,
  initBackend,
  linear,
  type PolicyModel,
  tokenLogProbsAndEntropy,
} from '@taorl/grpo';
import * as tf from '@tensorflow/tfjs';

interface Workload {
  batch: number;
  time: number;
  vocab: number;
  width: number;
  hidden: number;
  blocks: number;
  repeats: number;
}

// The cpu backend is ~80x slower at matMul than wasm (PLATFORM.md), so it gets a smaller batch.
const WORKLOADS: Record<'wasm' | 'cpu', Workload> = {
  wasm: { batch: 8, time: 128, vocab: 512, width: 256, hidden: 1024, blocks: 2, repeats: 5 },
  cpu: { batch: 2, time: 64, vocab: 512, width: 256, hidden: 1024, blocks: 2, repeats: 3 },
};

type Dense = (x: tf.Tensor, weight: tf.Tensor2D) => tf.Tensor;

/** Plain tf.matMul on the flattened input: tfjs's default gradient, with transposeA/transposeB matMuls. */
const plainDense: Dense = (x, weight) => {
  const flat = tf.reshape(x, [-1, weight.shape[0]]) as tf.Tensor2D;
  return tf.reshape(tf.matMul(flat, weight), [...x.shape.slice(0, -1), weight.shape[1]]);
};
const fastDense: Dense = (x, weight) => linear(x, weight);

function rmsNorm(x: tf.Tensor): tf.Tensor {
  return tf.mul(x, tf.rsqrt(tf.add(tf.mean(tf.square(x), -1, true), 1e-6)));
}

/** Embedding (int one-hot x table: wasm has no gather gradient), pre-norm MLP blocks, LM head. */
function buildModel(w: Workload, dense: Dense) {
  const random = (shape: [number, number], scale: number) =>
    tf.variable(tf.randomNormal(shape, 0, scale, 'float32', 7)) as tf.Variable<tf.Rank.R2>;
  const embedding = random([w.vocab, w.width], 0.02);
  const blocks = Array.from({ length: w.blocks }, () => ({
    up: random([w.width, w.hidden], 1 / Math.sqrt(w.width)),
    down: random([w.hidden, w.width], 1 / Math.sqrt(w.hidden)),
  }));
  const head = random([w.width, w.vocab], 1 / Math.sqrt(w.width));
  const model: PolicyModel = (tokens) =>
    tf.tidy(() => {
      let x = dense(tf.cast(tf.oneHot(tokens, w.vocab), 'float32'), embedding);
      for (const block of blocks) x = tf.add(x, dense(tf.relu(dense(rmsNorm(x), block.up)), block.down));
      return dense(rmsNorm(x), head) as tf.Tensor3D;
    });
  const variables = [embedding, ...blocks.flatMap((block) => [block.up, block.down]), head];
  return { model, variables };
}

function makeBatch(w: Workload) {
  const size = w.batch * w.time;
  const tokens = Int32Array.from({ length: size }, (_, i) => (i * 7919) % w.vocab);
  // First quarter of each row is the prompt; the rest is trained on, with group-style +-1 advantages.
  const lossMask = Uint8Array.from({ length: size }, (_, i) => (i % w.time >= w.time / 4 ? 1 : 0));
  const advantages = Float32Array.from(lossMask, (m, i) => m * (Math.floor(i / w.time) % 2 === 0 ? 1 : -1));
  return { rows: w.batch, columns: w.time, tokens, lossMask, advantages };
}

/** Median of the samples: robust to the other agents' load spikes on this shared machine. */
function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/**
 * Times named async variants in interleaved rounds (variant A, B, A, B, ...) after one warm-up call each, so
 * that load changes hit every variant alike; returns each variant's median seconds.
 */
async function interleaved(
  variants: Record<string, () => Promise<void>>,
  rounds: number,
): Promise<Record<string, number>> {
  const samples: Record<string, number[]> = {};
  for (const [name, run] of Object.entries(variants)) {
    await run();
    samples[name] = [];
  }
  for (let round = 0; round < rounds; round++) {
    for (const [name, run] of Object.entries(variants)) {
      const started = performance.now();
      await run();
      samples[name]!.push((performance.now() - started) / 1000);
    }
  }
  return Object.fromEntries(Object.entries(samples).map(([name, times]) => [name, median(times)]));
}

async function updateSteps(w: Workload): Promise<Record<string, number>> {
  const batch = makeBatch(w);
  const setups = { 'plain tf.matMul': buildModel(w, plainDense), 'linear (grpo)': buildModel(w, fastDense) };
  const updaters = Object.entries(setups).map(
    ([name, { model, variables }]) =>
      [name, new GrpoUpdater({ model, variables, learningRate: 1e-4 })] as const,
  );
  const times = await interleaved(
    Object.fromEntries(
      updaters.map(([name, updater]) => [name, async () => void (await updater.update(batch))]),
    ),
    w.repeats,
  );
  for (const [, updater] of updaters) updater.dispose();
  tf.dispose(Object.values(setups).flatMap((setup) => setup.variables));
  return times;
}

/** One-shot formulation: log-softmax and a one-hot product over the whole [B, T, V] at once. */
function oneShotLogProbs(logits: tf.Tensor3D, targets: tf.Tensor2D) {
  const logSoftmax = tf.logSoftmax(logits);
  const oneHot = tf.cast(tf.oneHot(targets, logits.shape[2]), 'float32');
  return {
    logProbs: tf.sum(tf.mul(logSoftmax, oneHot), -1),
    entropy: tf.neg(tf.sum(tf.mul(tf.exp(logSoftmax), logSoftmax), -1)),
  };
}

async function logProbVariants(
  w: Workload,
  chunkTokens: number[],
): Promise<Record<string, { seconds: number; peak: number }>> {
  const logits = tf.randomNormal([w.batch, w.time, w.vocab], 0, 2, 'float32', 3) as tf.Tensor3D;
  const targets = tf.tensor2d(makeBatch(w).tokens, [w.batch, w.time], 'int32');
  const gradientOf =
    (logProbs: (z: tf.Tensor3D) => { logProbs: tf.Tensor; entropy: tf.Tensor }) => async () => {
      const gradient = tf.grad((z: tf.Tensor) => {
        const result = logProbs(z as tf.Tensor3D);
        return tf.add(tf.sum(result.logProbs), tf.sum(result.entropy));
      })(logits);
      await gradient.data();
      gradient.dispose();
    };
  const variants: Record<string, () => Promise<void>> = {
    'one-shot log-softmax': gradientOf((z) => oneShotLogProbs(z, targets)),
  };
  for (const chunk of chunkTokens) {
    variants[`chunks of ${chunk} tokens`] = gradientOf((z) =>
      tokenLogProbsAndEntropy(z, targets, { chunkTokens: chunk }),
    );
  }
  const times = await interleaved(variants, 7);
  // Peak tensor bytes above the start, in units of the logits' size (tfjs counts reshape views as bytes too).
  const peaks: Record<string, number> = {};
  for (const [name, run] of Object.entries(variants)) {
    const before = tf.memory().numBytes;
    peaks[name] = ((await tf.profile(run)).peakBytes - before) / (logits.size * 4);
  }
  tf.dispose([logits, targets]);
  return Object.fromEntries(
    Object.entries(times).map(([name, seconds]) => [name, { seconds, peak: peaks[name]! }]),
  );
}

/** Eight row-range slices of the [B x T, V] logits: what one chunked pass costs in Slice kernels alone. */
async function sliceRows(w: Workload): Promise<number> {
  const flat = tf.randomNormal([w.batch * w.time, w.vocab]);
  const rows = (w.batch * w.time) / 8;
  const times = await interleaved(
    {
      slices: async () => {
        const pieces = Array.from({ length: 8 }, (_, i) => tf.slice(flat, [i * rows, 0], [rows, w.vocab]));
        await pieces[7]!.data();
        tf.dispose(pieces);
      },
    },
    7,
  );
  flat.dispose();
  return times.slices!;
}

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const backends = (process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['wasm', 'cpu']) as (
  | 'wasm'
  | 'cpu'
)[];
console.log(`node ${process.version}, ${cpus().length} cores, load average at start ${load()}`);
for (const backend of backends) {
  const report = await initBackend({ prefer: backend as BackendChoice });
  const w = WORKLOADS[backend];
  const tokens = w.batch * w.time;
  const params = w.vocab * w.width * 2 + w.blocks * 2 * w.width * w.hidden;
  console.log(
    `\n## ${report.tfBackend}: B=${w.batch} T=${w.time} V=${w.vocab} d=${w.width} hidden=${w.hidden} blocks=${w.blocks} (${(params / 1e6).toFixed(2)}M params), median of ${w.repeats} interleaved steps`,
  );
  const steps = await updateSteps(w);
  const baseline = steps['plain tf.matMul']!;
  for (const [name, seconds] of Object.entries(steps)) {
    console.log(
      `update step, ${name.padEnd(16)}: ${seconds.toFixed(3)} s  ${(tokens / seconds).toFixed(0)} tokens/s  (${(baseline / seconds).toFixed(2)}x)`,
    );
  }
  const logProbs = await logProbVariants(w, [tokens, tokens / 8]);
  console.log(`8 row slices of the [B x T, V] logits: ${((await sliceRows(w)) * 1000).toFixed(2)} ms`);
  const oneShot = logProbs['one-shot log-softmax']!.seconds;
  for (const [name, { seconds, peak }] of Object.entries(logProbs)) {
    console.log(
      `log-probs + entropy, forward + backward, ${name.padEnd(22)}: ${(seconds * 1000).toFixed(1)} ms  (${(oneShot / seconds).toFixed(2)}x), peak ${peak.toFixed(1)} x logits`,
    );
  }
}
console.log(`\nload average at end ${load()}`);
