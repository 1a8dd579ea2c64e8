import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { getPolicyLoss, policyLoss, policyLossNames, registerPolicyLoss, sftLoss } from '../src/index';
import { TEST_BACKENDS, useBackend } from './support/backends';
import { expectAllClose } from './support/close';

const shape: [number, number] = [2, 3];
const logProbs = [-0.5, -1.5, -0.2, -2.5, -0.9, -1.1];
const oldLogProbs = [-0.6, -1.0, -0.9, -2.4, -0.9, -1.6];
const advantages = [1, -1, 2, -0.5, 0.5, -2];
const lossMask = [1, 1, 0, 1, 1, 1];
const lossTokens = lossMask.reduce((a, b) => a + b, 0);
const tensor = (values: number[]) => tf.tensor2d(values, shape);

// A user's loss: the plain policy gradient -A log pi (GPG), registered once for all backends.
registerPolicyLoss('test-policy-gradient', () => ({ logProbs: lp, advantages: adv }) => ({
  perToken: tf.neg(tf.mul(adv, lp)) as tf.Tensor2D,
  metrics: { meanAdvantage: tf.mean(adv) as tf.Scalar },
}));

// A user's loss with an option, checked by its zod schema: the policy gradient with advantages scaled by `scale`.
registerPolicyLoss(
  'test-scaled-policy-gradient',
  ({ scale }) =>
    ({ logProbs: lp, advantages: adv }) => ({
      perToken: tf.neg(tf.mul(tf.mul(adv, scale), lp)) as tf.Tensor2D,
      metrics: {},
    }),
  { schema: z.strictObject({ scale: z.number().positive().default(1) }) },
);

describe.each(TEST_BACKENDS)('policy loss registry and sftLoss on %s', (backend) => {
  useBackend(backend);
  const gradientOf = async (name: string, config = {}) =>
    tf
      .grad(
        (lp: tf.Tensor) =>
          policyLoss(
            {
              logProbs: lp as tf.Tensor2D,
              oldLogProbs: tensor(oldLogProbs),
              advantages: tensor(advantages),
              lossMask: tensor(lossMask),
            },
            { name, ...config },
          ).loss,
      )(tensor(logProbs))
      .data();

  it('runs a user-registered loss by name, with its metrics', async () => {
    expect(policyLossNames()).toEqual([
      'cispo',
      'gspo',
      'vanilla',
      'test-policy-gradient',
      'test-scaled-policy-gradient',
    ]);
    const { loss, metrics } = policyLoss(
      {
        logProbs: tensor(logProbs),
        oldLogProbs: tensor(oldLogProbs),
        advantages: tensor(advantages),
        lossMask: tensor(lossMask),
      },
      { name: 'test-policy-gradient' },
    );
    const expected =
      logProbs.reduce((sum, lp, index) => sum - advantages[index]! * lp * lossMask[index]!, 0) / lossTokens;
    expectAllClose(await loss.data(), [expected]);
    expectAllClose(await metrics.meanAdvantage!.data(), [advantages.reduce((a, b) => a + b, 0) / 6]);
    expectAllClose(
      await gradientOf('test-policy-gradient'),
      advantages.map((a, index) => (-a * lossMask[index]!) / lossTokens),
    );
  });

  it('passes a user loss its options, checked by its schema', async () => {
    const plain = await gradientOf('test-policy-gradient');
    const scaled = await gradientOf('test-scaled-policy-gradient', { options: { scale: 3 } });
    expectAllClose(
      scaled,
      plain.map((g) => 3 * g),
    );
    expectAllClose(await gradientOf('test-scaled-policy-gradient'), plain);
    expect(() => getPolicyLoss('test-scaled-policy-gradient', { scale: -1 })).toThrow(
      /^policy loss "test-scaled-policy-gradient": option 'scale': /,
    );
    expect(() => getPolicyLoss('vanilla', { scale: 2 })).toThrow(
      'policy loss "vanilla": takes no options, got \'scale\'',
    );
  });

  it('cispo keeps a gradient on clipped tokens, weighted by the clipped ratio', async () => {
    const gradient = await gradientOf('cispo', { clipLow: 0.2, clipHigh: 0.28 });
    const expected = logProbs.map((lp, index) => {
      const ratio = Math.min(1.28, Math.max(0.8, Math.exp(lp - oldLogProbs[index]!)));
      return (-ratio * advantages[index]! * lossMask[index]!) / lossTokens;
    });
    expectAllClose(gradient, expected);
    // Token 0 has ratio e^0.1 inside the bounds; token 1 has e^-0.5 < 0.8: vanilla zeroes it, cispo does not.
    expect(Math.abs((await gradientOf('vanilla'))[1]!)).toBe(0);
    expect(gradient[1]).not.toBe(0);
  });

  it('sftLoss is the masked mean negative log-likelihood, with gradient -1/tokens on loss tokens', async () => {
    const loss = sftLoss({ logProbs: tensor(logProbs), lossMask: tensor(lossMask) });
    const expected = -logProbs.reduce((sum, lp, index) => sum + lp * lossMask[index]!, 0) / lossTokens;
    expectAllClose(await loss.data(), [expected]);
    const gradient = tf.grad((lp: tf.Tensor) =>
      sftLoss({ logProbs: lp as tf.Tensor2D, lossMask: tensor(lossMask) }),
    )(tensor(logProbs));
    expectAllClose(
      await gradient.data(),
      lossMask.map((m) => -m / lossTokens),
    );
    const perSequence = sftLoss(
      { logProbs: tensor(logProbs), lossMask: tensor(lossMask) },
      { aggregation: 'seq-mean-token-mean' },
    );
    expectAllClose(await perSequence.data(), [-((-0.5 - 1.5) / 2 + (-2.5 - 0.9 - 1.1) / 3) / 2]);
  });
});

// Once, not per backend: it registers names.
describe('policy loss registry', () => {
  it('refuses to register a name twice unless replace is set, and suggests a near name', () => {
    const zeroLoss = () => () => ({ perToken: tf.zeros(shape) as tf.Tensor2D, metrics: {} });
    expect(() => registerPolicyLoss('vanilla', zeroLoss)).toThrow(
      'policy loss "vanilla" is already registered; pass { replace: true } to replace it',
    );
    registerPolicyLoss('test-replaced', zeroLoss);
    registerPolicyLoss('test-replaced', () => getPolicyLoss('vanilla'), { replace: true });
    expect(getPolicyLoss('test-replaced')).toBe(getPolicyLoss('vanilla'));
    expect(() => getPolicyLoss('vanila')).toThrow('unknown policy loss "vanila" (did you mean "vanilla"?)');
  });
});
