import { seededRandom } from '@taorl/eval';
import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import { linear } from '../src/index';
import { TEST_BACKENDS, useBackend } from './support/backends';
import { expectAllClose } from './support/close';
import { uniform } from './support/random';

/** Row-major float64 product of a [m, k] and b [k, n]. */
function matMul64(a: number[], b: number[], m: number, k: number, n: number): number[] {
  const out = new Array<number>(m * n).fill(0);
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < n; j++) {
      let sum = 0;
      for (let p = 0; p < k; p++) sum += a[i * k + p]! * b[p * n + j]!;
      out[i * n + j] = sum;
    }
  }
  return out;
}

function transpose64(a: number[], rows: number, cols: number): number[] {
  return Array.from(
    { length: rows * cols },
    (_, index) => a[(index % rows) * cols + Math.floor(index / rows)]!,
  );
}

describe.each(TEST_BACKENDS)('linear on %s', (backend) => {
  useBackend(backend);
  const random = seededRandom(7);
  const [batch, time, inF, outF] = [2, 3, 4, 5];
  const rows = batch * time;
  const x = uniform(random, rows * inF);
  const w = uniform(random, inF * outF);
  const b = uniform(random, outF);
  const upstream = uniform(random, rows * outF);

  it('matches a float64 product with bias over a 3-D input', async () => {
    const y = linear(tf.tensor3d(x, [batch, time, inF]), tf.tensor2d(w, [inF, outF]), tf.tensor1d(b));
    expect(y.shape).toEqual([batch, time, outF]);
    const expected = matMul64(x, w, rows, inF, outF).map((value, index) => value + b[index % outF]!);
    const actual = await y.data();
    expectAllClose(actual, expected);
  });

  it('has the float64 gradients dx = g W^T, dW = x^T g, db = sum g', async () => {
    const grads = tf.grads((xs: tf.Tensor, ws: tf.Tensor, bs: tf.Tensor) =>
      tf.sum(
        tf.mul(linear(xs, ws as tf.Tensor2D, bs as tf.Tensor1D), tf.tensor3d(upstream, [batch, time, outF])),
      ),
    )([tf.tensor3d(x, [batch, time, inF]), tf.tensor2d(w, [inF, outF]), tf.tensor1d(b)]);
    const [dx, dw, db] = await Promise.all(grads.map((grad) => grad.data()));
    const expectedDx = matMul64(upstream, transpose64(w, inF, outF), rows, outF, inF);
    const expectedDw = matMul64(transpose64(x, rows, inF), upstream, inF, rows, outF);
    const expectedDb = Array.from({ length: outF }, (_, j) =>
      upstream.filter((_, index) => index % outF === j).reduce((sum, value) => sum + value, 0),
    );
    expectAllClose(dx!, expectedDx);
    expectAllClose(dw!, expectedDw);
    expectAllClose(db!, expectedDb);
  });

  it('names the mismatching shapes', () => {
    expect(() => linear(tf.zeros([2, 3]), tf.zeros([4, 5]) as tf.Tensor2D)).toThrow(
      /shape \[2, 3\].*last axis of 4/,
    );
    expect(() =>
      linear(tf.zeros([2, 4]), tf.zeros([4, 5]) as tf.Tensor2D, tf.zeros([3]) as tf.Tensor1D),
    ).toThrow(/bias has length 3/);
  });
});
