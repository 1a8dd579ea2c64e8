import { seededRandom } from '@taorl/eval';
import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import { tokenLogProbsAndEntropy } from '../src/index';
import { TEST_BACKENDS, useBackend } from './support/backends';
import { expectAllClose } from './support/close';
import { uniform } from './support/random';
import { finiteDifferences, logProbAndEntropy64 } from './support/reference64';

const [B, T, V] = [2, 5, 7];
const random = seededRandom(11);
// Large offsets on some rows: a naive exp() overflows float32 there, the stable log-softmax must not.
const logits = uniform(random, B * T * V, -3, 3).map((value, index) => (index < V ? value + 500 : value));
const targets = Array.from({ length: B * T }, () => Math.floor(random() * V));
const logProbWeights = uniform(random, B * T);
const entropyWeights = uniform(random, B * T);

function reference64(z: readonly number[], temperature: number) {
  const logProbs: number[] = [];
  const entropy: number[] = [];
  for (let position = 0; position < B * T; position++) {
    const stats = logProbAndEntropy64(
      z.slice(position * V, (position + 1) * V),
      targets[position]!,
      temperature,
    );
    logProbs.push(stats.logProb);
    entropy.push(stats.entropy);
  }
  return { logProbs, entropy };
}

/** The scalar whose gradient the tests compare: sum(a . log p) + sum(b . H). */
function objective64(z: readonly number[], temperature: number): number {
  const { logProbs, entropy } = reference64(z, temperature);
  return logProbs.reduce(
    (sum, value, index) => sum + value * logProbWeights[index]! + entropy[index]! * entropyWeights[index]!,
    0,
  );
}

describe.each(TEST_BACKENDS)('tokenLogProbsAndEntropy on %s', (backend) => {
  useBackend(backend);

  it.each([
    [1, undefined],
    [0.7, 3],
    [1, 1],
  ])(
    'matches float64 log-softmax and entropy (temperature %s, chunkTokens %s)',
    async (temperature, chunkTokens) => {
      const result = tokenLogProbsAndEntropy(
        tf.tensor3d(logits, [B, T, V]),
        tf.tensor2d(targets, [B, T], 'int32'),
        {
          temperature,
          chunkTokens,
        },
      );
      expect(result.logProbs.shape).toEqual([B, T]);
      const expected = reference64(logits, temperature);
      expectAllClose(await result.logProbs.data(), expected.logProbs, { atol: 2e-5 });
      expectAllClose(await result.entropy.data(), expected.entropy, { atol: 2e-5 });
    },
  );

  it.each([
    [1, undefined],
    [0.7, 3],
  ])(
    'has the finite-difference gradient of a float64 recomputation (temperature %s, chunkTokens %s)',
    async (temperature, chunkTokens) => {
      const gradient = tf.grad((z: tf.Tensor) => {
        const { logProbs, entropy } = tokenLogProbsAndEntropy(
          z as tf.Tensor3D,
          tf.tensor2d(targets, [B, T], 'int32'),
          {
            temperature,
            chunkTokens,
          },
        );
        return tf.add(
          tf.sum(tf.mul(logProbs, tf.tensor2d(logProbWeights, [B, T]))),
          tf.sum(tf.mul(entropy, tf.tensor2d(entropyWeights, [B, T]))),
        );
      })(tf.tensor3d(logits, [B, T, V]));
      const expected = finiteDifferences((z) => objective64(z, temperature), logits);
      expectAllClose(await gradient.data(), expected, { atol: 1e-5, rtol: 1e-3 });
    },
  );

  it('holds no second [B, T, V] tensor in the forward pass, and only the gradient and its chunks in the backward', async () => {
    const [b, t, v] = [2, 16, 1000];
    const z = tf.randomNormal([b, t, v]) as tf.Tensor3D;
    const ids = tf.zeros([b, t], 'int32') as tf.Tensor2D;
    // Peak bytes above the starting point, in units of the logits' size. tfjs counts the bytes of a reshape
    // view again although it shares the buffer: the [B x T, V] view of the logits counts as one unit, and the
    // gradient's [B, T, V] view of the [B x T, V] gradient as another.
    const peak = async (run: () => void) => {
      const before = tf.memory().numBytes;
      return ((await tf.profile(run)).peakBytes - before) / (b * t * v * 4);
    };
    const forward = await peak(() => {
      const result = tokenLogProbsAndEntropy(z, ids, { chunkTokens: 2 });
      tf.dispose([result.logProbs, result.entropy]);
    });
    expect(forward).toBeLessThan(2); // the logits' view + chunk temporaries (16 chunks)
    const entropyGradient = (logProbs: (x: tf.Tensor3D) => tf.Tensor) => () => {
      tf.grad((x: tf.Tensor) => tf.sum(logProbs(x as tf.Tensor3D)))(z).dispose();
    };
    const backward = await peak(
      entropyGradient((x) => tokenLogProbsAndEntropy(x, ids, { chunkTokens: 2 }).entropy),
    );
    expect(backward).toBeLessThan(4.5); // two views + the gradient + its chunks while they are concatenated
    // The one-shot formulation keeps several [B, T, V] tensors for its backward pass.
    const oneShot = await peak(
      entropyGradient((x) => {
        const logSoftmax = tf.logSoftmax(x);
        return tf.neg(tf.mul(tf.exp(logSoftmax), logSoftmax));
      }),
    );
    expect(oneShot).toBeGreaterThan(8);
    tf.dispose([z, ids]);
  });

  it('keeps no tensor alive beyond its two outputs', () => {
    const z = tf.tensor3d(logits, [B, T, V]);
    const ids = tf.tensor2d(targets, [B, T], 'int32');
    const before = tf.memory().numTensors;
    const result = tokenLogProbsAndEntropy(z, ids, { chunkTokens: 2 });
    expect(tf.memory().numTensors).toBe(before + 2);
    tf.dispose([result.logProbs, result.entropy, z, ids]);
  });

  it('rejects mismatched shapes, float targets and bad options by name', () => {
    const z = tf.zeros([B, T, V]) as tf.Tensor3D;
    expect(() => tokenLogProbsAndEntropy(z, tf.zeros([B, T + 1], 'int32') as tf.Tensor2D)).toThrow(
      /targets must be \[2, 5\]/,
    );
    expect(() => tokenLogProbsAndEntropy(z, tf.zeros([B, T]) as tf.Tensor2D)).toThrow(
      /targets must be int32/,
    );
    expect(() =>
      tokenLogProbsAndEntropy(z, tf.zeros([B, T], 'int32') as tf.Tensor2D, { temperature: 0 }),
    ).toThrow(/options.temperature/);
    expect(() =>
      tokenLogProbsAndEntropy(z, tf.zeros([B, T], 'int32') as tf.Tensor2D, { chunkTokens: 1.5 }),
    ).toThrow(/options.chunkTokens/);
  });
});
