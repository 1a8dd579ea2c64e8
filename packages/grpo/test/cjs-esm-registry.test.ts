import { createRequire } from 'node:module';
import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import { useBackend } from './support/backends';
import { expectAllClose } from './support/close';

// The built package (pnpm build): the CommonJS and the ESM build are two copies of the code in one process.
const require = createRequire(import.meta.url);

describe('one policy loss registry per process', () => {
  useBackend('cpu');

  it('runs from the ESM build a loss registered through the CommonJS build, with its option', async () => {
    require('./fixtures/register-from-cjs.cjs');
    const cjs = require('../dist/index.cjs') as typeof import('../dist/index.cjs');
    const esm = await import('../dist/index.js');
    const logProbs = [-0.5, -1.5, -0.2, -2.5];
    const advantages = [1, -1, 2, -0.5];
    const { loss } = esm.policyLoss(
      {
        logProbs: tf.tensor2d(logProbs, [2, 2]),
        oldLogProbs: tf.tensor2d(logProbs, [2, 2]),
        advantages: tf.tensor2d(advantages, [2, 2]),
        lossMask: tf.ones([2, 2]) as tf.Tensor2D,
      },
      { name: 'scaled-policy-gradient-from-cjs', options: { scale: 2 } },
    );
    // token-mean of -2 A log pi over the 4 tokens.
    const expected = logProbs.reduce((sum, lp, i) => sum - 2 * advantages[i]! * lp, 0) / 4;
    expectAllClose(await loss.data(), [expected]);
    expect(() => esm.getPolicyLoss('scaled-policy-gradient-from-cjs', { scal: 2 })).toThrow(
      'unknown option(s) scal',
    );
    // Each build registers the built-ins where they are defined; the second build finds them and adds none.
    expect(esm.policyLossNames()).toEqual(cjs.policyLossNames());
    expect(esm.policyLossNames().filter((name) => name === 'vanilla')).toHaveLength(1);
  });
});
