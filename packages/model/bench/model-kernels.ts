// The wasm slow paths the model avoids, each against its replacement in the same run (docs/models.md, "Speed").
// Run: pnpm bench packages/model/bench/model-kernels.ts
import { loadavg } from 'node:os';
import { initBackend, transpose2d } from '@taorl/grpo';
import * as tf from '@tensorflow/tfjs';
import { permute } from '../src/permute.js';
import { channelProduct } from '../src/products.js';
import { applyRope, ropeTables } from '../src/rope.js';

await initBackend({ prefer: 'wasm' });

/**
 * Median CPU milliseconds of this process (user + system: other processes on the shared cores do not inflate it)
 * over `runs` calls after one warm-up, each forced to completion with dataSync.
 */
function median(fn: () => tf.Tensor, runs = 15): number {
  tf.dispose(fn());
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = process.cpuUsage();
    const out = fn();
    out.dataSync();
    const used = process.cpuUsage(start);
    times.push((used.user + used.system) / 1000);
    out.dispose();
  }
  return times.sort((a, b) => a - b)[Math.floor(runs / 2)]!;
}

function compare(label: string, slow: [string, () => tf.Tensor], fast: [string, () => tf.Tensor]): void {
  const a = median(slow[1]);
  const b = median(fast[1]);
  const same = tf.tidy(() => tf.max(tf.abs(tf.sub(slow[1](), fast[1]()))).dataSync()[0]);
  console.log(
    `| ${label} | ${slow[0]} ${a.toFixed(2)} ms | ${fast[0]} ${b.toFixed(2)} ms | ${(a / b).toFixed(1)}x | ${same} |`,
  );
}

console.log(`load average ${loadavg()[0]!.toFixed(1)}`);
console.log(
  '| operation (training step shapes) | slow path (CPU ms) | replacement (CPU ms) | speed-up | max abs difference |',
);
console.log('|---|---|---|---|---|');
// Scores of the tiny model's training step: 16 sequences x 2 KV heads, 2 query heads each, 128 tokens, width 32.
const n = 32;
for (const [m, k, p] of [
  [256, 32, 128],
  [256, 128, 32],
]) {
  const a = tf.randomNormal([n, m!, k!]) as tf.Tensor3D;
  const b = tf.randomNormal([n, k!, p!]) as tf.Tensor3D;
  const x = tf.transpose(a, [1, 0, 2]) as tf.Tensor3D;
  const w = tf.transpose(b, [1, 0, 2]) as tf.Tensor3D;
  compare(
    `${n} products [${m}x${k}]x[${k}x${p}]`,
    ['batched matMul', () => tf.matMul(a, b)],
    ['channelProduct', () => tf.transpose(channelProduct(x, w), [1, 0, 2])],
  );
}
const q = tf.randomNormal([16, 128, 2, 2, 32]);
compare(
  'transpose [16,128,2,2,32] by [3,1,4,0,2]',
  ['tf.transpose (rank 5)', () => tf.transpose(q, [3, 1, 4, 0, 2])],
  ['permute (rank <= 4)', () => permute(q, [3, 1, 4, 0, 2])],
);
const heads = tf.randomNormal([16, 128, 6, 32]);
const rope = ropeTables(
  Int32Array.from({ length: 128 }, (_, i) => i),
  [1, 128],
  32,
  10000,
);
compare(
  'RoPE on [16,128,6,32]',
  [
    'split/neg/concat',
    () => {
      const [x1, x2] = tf.split(heads, 2, -1);
      return tf.add(tf.mul(heads, rope.cos), tf.mul(tf.concat([tf.neg(x2!), x1!], -1), rope.sin));
    },
  ],
  ['rotate-half matMul', () => applyRope(heads, rope)],
);
for (const columns of [128, 384]) {
  const activations = tf.randomNormal([2048, columns]) as tf.Tensor2D;
  compare(
    `transpose [2048,${columns}] (a weight gradient's input)`,
    ['tf.transpose (2-D)', () => tf.transpose(activations)],
    ['transpose2d (row blocks)', () => transpose2d(activations)],
  );
}
