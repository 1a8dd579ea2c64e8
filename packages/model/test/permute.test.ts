import { initBackend } from '@taorl/grpo';
import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { permute } from '../src/permute.js';

beforeAll(async () => {
  await initBackend({ prefer: 'wasm' });
});

/** Every permutation of [0, n). */
function permutations(n: number): number[][] {
  if (n === 0) return [[]];
  return permutations(n - 1).flatMap((p) =>
    Array.from({ length: n }, (_, i) => [...p.slice(0, i), n - 1, ...p.slice(i)]),
  );
}

describe('permute', () => {
  it('equals tf.transpose for every permutation of a 5-D tensor (with a size-1 axis too), values and gradients', () => {
    for (const shape of [
      [2, 3, 4, 5, 6],
      [3, 1, 2, 4, 2],
    ]) {
      const size = shape.reduce((a, b) => a * b, 1);
      const x = tf.tensor(
        Float32Array.from({ length: size }, (_, i) => i),
        shape,
      );
      const probe = (perm: number[]) =>
        tf.tensor(
          Float32Array.from({ length: size }, (_, i) => (i * 7) % 11),
          perm.map((a) => shape[a]!),
        );
      for (const perm of permutations(5)) {
        const expected = tf.transpose(x, perm);
        const actual = permute(x, perm);
        expect(actual.shape).toEqual(expected.shape);
        expect(Array.from(actual.dataSync())).toEqual(Array.from(expected.dataSync()));
        const r = probe(perm);
        const gradOf = (f: (t: tf.Tensor) => tf.Tensor) =>
          tf.grad((t: tf.Tensor) => tf.sum(tf.mul(f(t), r)))(x);
        const g1 = gradOf((t) => permute(t, perm));
        const g2 = gradOf((t) => tf.transpose(t, perm));
        expect(Array.from(g1.dataSync())).toEqual(Array.from(g2.dataSync()));
        tf.dispose([expected, actual, r, g1, g2]);
      }
      x.dispose();
    }
  });
});
