import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import { type KlPenaltyKind, klPenalty } from '../src/index';
import { TEST_BACKENDS, useBackend } from './support/backends';
import { expectAllClose } from './support/close';
import { finiteDifferences, kl64 } from './support/reference64';

// d = logp - logp_ref from -30 (k3 hits both clamps) to 2.
const logProbs = [-31, -3, -1.2, -0.5, -2, -0.1];
const refLogProbs = [-1, -1, -1, -1, -1, -2.1];
const shape: [number, number] = [2, 3];

describe.each(TEST_BACKENDS)('klPenalty on %s', (backend) => {
  useBackend(backend);

  it.each([
    ['k1', 'k1'],
    ['kl', 'k1'],
    ['k2', 'k2'],
    ['mse', 'k2'],
    ['k3', 'k3'],
    ['low_var_kl', 'k3'],
  ] as const)('%s matches the float64 %s estimator in value and gradient', async (kind, reference) => {
    const penalty = klPenalty(kind);
    const ref = tf.tensor2d(refLogProbs, shape);
    const value = penalty(tf.tensor2d(logProbs, shape), ref);
    const expected = logProbs.map((lp, index) => kl64(reference, lp, refLogProbs[index]!));
    expectAllClose(await value.data(), expected, { rtol: 1e-5 });
    const gradient = tf.grad((lp: tf.Tensor) => tf.sum(penalty(lp as tf.Tensor2D, ref)))(
      tf.tensor2d(logProbs, shape),
    );
    const total64 = (lp: number[]) =>
      lp.reduce((sum, value, index) => sum + kl64(reference, value, refLogProbs[index]!), 0);
    expectAllClose(await gradient.data(), finiteDifferences(total64, logProbs), { rtol: 1e-4 });
  });

  it.each(['k1+', 'k3+', 'low_var_kl+'] as const)(
    '%s keeps its value but takes the k2 gradient d',
    async (kind) => {
      const ref = tf.tensor2d(refLogProbs, shape);
      const base = kind.slice(0, -1) as KlPenaltyKind;
      const value = await klPenalty(kind)(tf.tensor2d(logProbs, shape), ref).data();
      expect(Array.from(value)).toEqual(
        Array.from(await klPenalty(base)(tf.tensor2d(logProbs, shape), ref).data()),
      );
      const gradient = tf.grad((lp: tf.Tensor) => tf.sum(klPenalty(kind)(lp as tf.Tensor2D, ref)))(
        tf.tensor2d(logProbs, shape),
      );
      expectAllClose(
        await gradient.data(),
        logProbs.map((lp, index) => lp - refLogProbs[index]!),
      );
    },
  );

  it('rejects unknown kinds', () => {
    expect(() => klPenalty('k4' as KlPenaltyKind)).toThrow('unknown kind "k4"');
  });
});
