import { seededRandom } from '@taorl/eval';
import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import { LOSS_AGGREGATIONS, type LossAggregation, type PolicyLossConfig, policyLoss } from '../src/index';
import { TEST_BACKENDS, useBackend } from './support/backends';
import { expectAllClose } from './support/close';
import { uniform } from './support/random';
import { aggregate64, finiteDifferences, kl64, vanillaPerToken64 } from './support/reference64';

const [B, T] = [3, 6];
const random = seededRandom(5);
const oldLogProbs = uniform(random, B * T, -3, -0.2);
// Log-ratios in [-0.7, 0.7]: ratios from 0.5 to 2 hit both clip bounds and the dual clip.
const logProbs = oldLogProbs.map((value) => value + (random() * 1.4 - 0.7));
const advantages = uniform(random, B * T, -2, 2);
const refLogProbs = logProbs.map((value) => value + (random() - 0.5));
const entropy = uniform(random, B * T, 0.1, 2);
// Rows of different loss lengths (5, 3, 2 tokens), so the aggregation modes disagree.
const lossMask = [0, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 1, 1];

const tensor = (values: readonly number[]) => tf.tensor2d(values as number[], [B, T]);

/** The whole loss in float64 from the inputs, as a function of (logProbs, entropy). */
function loss64(
  lp: readonly number[],
  ent: readonly number[],
  config: Required<Omit<PolicyLossConfig, 'name' | 'options' | 'horizon' | 'logRatioBound'>>,
): number {
  const perToken = lp.map((value, index) =>
    vanillaPerToken64(value, oldLogProbs[index]!, advantages[index]!, config),
  );
  let total = aggregate64(perToken, lossMask, T, config.aggregation);
  const kind = ({ low_var_kl: 'k3', k1: 'k1', k2: 'k2', k3: 'k3' } as const)[config.klKind as 'k1'];
  if (config.klCoef > 0) {
    total +=
      config.klCoef *
      aggregate64(
        lp.map((value, index) => kl64(kind, value, refLogProbs[index]!)),
        lossMask,
        T,
        config.aggregation,
      );
  }
  return total - config.entropyCoef * aggregate64([...ent], lossMask, T, config.aggregation);
}

const baseConfig = {
  clipLow: 0.2,
  clipHigh: 0.28,
  dualClip: 3 as number | null,
  aggregation: 'token-mean' as LossAggregation,
  klCoef: 0,
  klKind: 'low_var_kl' as const,
  entropyCoef: 0,
};

describe.each(TEST_BACKENDS)('policyLoss on %s', (backend) => {
  useBackend(backend);

  const run = (config: PolicyLossConfig) =>
    policyLoss(
      {
        logProbs: tensor(logProbs),
        oldLogProbs: tensor(oldLogProbs),
        advantages: tensor(advantages),
        lossMask: tensor(lossMask),
        entropy: tensor(entropy),
        refLogProbs: tensor(refLogProbs),
      },
      config,
    );

  it.each(
    LOSS_AGGREGATIONS.flatMap((aggregation) => [
      { ...baseConfig, aggregation },
      { ...baseConfig, aggregation, dualClip: null, klCoef: 0.1, klKind: 'k1' as const, entropyCoef: 0.01 },
    ]),
  )('matches the float64 loss for %o', async (config) => {
    const { loss } = run(config);
    expect(await loss.data()).toHaveLength(1);
    expectAllClose(await loss.data(), [loss64(logProbs, entropy, { ...baseConfig, ...config })]);
  });

  it('reports clip fractions, approximate KL, mean ratio and entropy over loss tokens', async () => {
    const { metrics } = run(baseConfig);
    const masked = lossMask.flatMap((m, index) => (m === 1 ? [index] : []));
    const ratio = (index: number) => Math.exp(logProbs[index]! - oldLogProbs[index]!);
    const fraction = (test: (index: number) => boolean) => masked.filter(test).length / masked.length;
    const expected = {
      clipFractionLow: fraction((i) => advantages[i]! < 0 && ratio(i) < 0.8),
      clipFractionHigh: fraction((i) => advantages[i]! > 0 && ratio(i) > 1.28),
      dualClipFraction: fraction((i) => advantages[i]! < 0 && ratio(i) > 3),
      approxKl: masked.reduce((sum, i) => sum + oldLogProbs[i]! - logProbs[i]!, 0) / masked.length,
      meanRatio: masked.reduce((sum, i) => sum + ratio(i), 0) / masked.length,
      entropy: masked.reduce((sum, i) => sum + entropy[i]!, 0) / masked.length,
    };
    expect(expected.clipFractionLow).toBeGreaterThan(0);
    expect(expected.clipFractionHigh).toBeGreaterThan(0);
    for (const [name, value] of Object.entries(expected)) {
      expectAllClose(await metrics[name]!.data(), [value]);
    }
  });

  it('computes approxKl and meanRatio on the clamped log-ratio, as verl computes ppo_kl', async () => {
    // Log-ratios beyond the bound of 20 next to ordinary ones: verl clamps log p - log p_old to [-20, 20] first
    // and takes ppo_kl = mean(-clamped) (core_algos.py compute_policy_loss).
    const far = [30, -25, 0.3, 26, -22, -0.4];
    const bound = 20;
    const mask = [1, 1, 1, 1, 1, 0];
    const old = [-1, -2, -3, -0.5, -1.5, -2.5];
    const lp = old.map((value, index) => value + far[index]!);
    const { metrics } = policyLoss(
      {
        logProbs: tf.tensor2d(lp, [1, 6]),
        oldLogProbs: tf.tensor2d(old, [1, 6]),
        advantages: tf.tensor2d([1, -1, 1, -1, 1, -1], [1, 6]),
        lossMask: tf.tensor2d(mask, [1, 6]),
      },
      { logRatioBound: bound },
    );
    const kept = mask.flatMap((m, index) => (m === 1 ? [index] : []));
    const clamped = (index: number) => Math.min(bound, Math.max(-bound, lp[index]! - old[index]!));
    const approxKl64 = kept.reduce((sum, index) => sum - clamped(index), 0) / kept.length;
    const meanRatio64 = kept.reduce((sum, index) => sum + Math.exp(clamped(index)), 0) / kept.length;
    // Unclamped, the mean would be -9.3 / 5 = -1.86; clamped it is -0.3 / 5 = -0.06.
    const raw64 = kept.reduce((sum, index) => sum - (lp[index]! - old[index]!), 0) / kept.length;
    expect(Math.abs(raw64 - approxKl64)).toBeGreaterThan(0.5);
    expectAllClose(await metrics.approxKl!.data(), [approxKl64]);
    expectAllClose(await metrics.meanRatio!.data(), [meanRatio64], { rtol: 1e-5 });
  });

  it.each([
    { ...baseConfig },
    { ...baseConfig, aggregation: 'seq-mean-token-mean' as const, klCoef: 0.2, entropyCoef: 0.05 },
    { ...baseConfig, aggregation: 'seq-mean-token-sum' as const, klCoef: 0.2, klKind: 'k2' as const },
  ])('has the finite-difference gradient of the float64 loss for %o', async (config) => {
    const lossOf = (lp: tf.Tensor, ent: tf.Tensor) =>
      policyLoss(
        {
          logProbs: lp as tf.Tensor2D,
          entropy: ent as tf.Tensor2D,
          oldLogProbs: tensor(oldLogProbs),
          advantages: tensor(advantages),
          lossMask: tensor(lossMask),
          refLogProbs: tensor(refLogProbs),
        },
        config,
      ).loss;
    const gradient = await tf
      .grad((lp: tf.Tensor) => lossOf(lp, tensor(entropy)))(tensor(logProbs))
      .data();
    expectAllClose(
      gradient,
      finiteDifferences((lp) => loss64(lp, entropy, config), logProbs),
    );
    if (config.entropyCoef !== 0) {
      const entropyGradient = await tf
        .grad((ent: tf.Tensor) => lossOf(tensor(logProbs), ent))(tensor(entropy))
        .data();
      expectAllClose(
        entropyGradient,
        finiteDifferences((ent) => loss64(logProbs, ent, config), entropy),
      );
    }
    // Masked tokens get exactly zero gradient.
    lossMask.forEach((m, index) => {
      if (m === 0) expect(Math.abs(gradient[index]!)).toBe(0);
    });
  });

  it('ignores whatever masked tokens hold: same loss and gradient', async () => {
    const scramble = (values: number[]) =>
      values.map((value, index) => (lossMask[index] === 0 ? value * 7 - 3 : value));
    const lossAndGradient = async (lp: number[], old: number[], adv: number[]) => {
      const loss = (x: tf.Tensor) =>
        policyLoss(
          {
            logProbs: x as tf.Tensor2D,
            oldLogProbs: tensor(old),
            advantages: tensor(adv),
            lossMask: tensor(lossMask),
          },
          { ...baseConfig, aggregation: 'seq-mean-token-mean' },
        ).loss;
      // + 0 turns -0 into 0: masked tokens get a zero gradient of either sign.
      const gradient = Array.from(await tf.grad(loss)(tensor(lp)).data(), (value) => value + 0);
      return [Array.from(await loss(tensor(lp)).data()), gradient];
    };
    const reference = await lossAndGradient(logProbs, oldLogProbs, advantages);
    expect(await lossAndGradient(scramble(logProbs), scramble(oldLogProbs), scramble(advantages))).toEqual(
      reference,
    );
  });

  it('dual clip changes only tokens with negative advantages', async () => {
    // Every loss token has ratio e^1.5 = 4.5 > c = 3; half of them have negative advantages.
    const shifted = oldLogProbs.map((value) => value + 1.5);
    const signs = advantages.map((_, index) => (index % 2 === 0 ? 1 : -1));
    const perTokenGradient = async (advantageValues: number[], dualClip: number | null) => {
      const gradient = tf.grad(
        (lp: tf.Tensor) =>
          policyLoss(
            {
              logProbs: lp as tf.Tensor2D,
              oldLogProbs: tensor(oldLogProbs),
              advantages: tensor(advantageValues),
              lossMask: tensor(lossMask),
            },
            { dualClip, aggregation: 'seq-mean-token-sum' },
          ).loss,
      )(tensor(shifted));
      return Array.from(await gradient.data());
    };
    const withDual = await perTokenGradient(signs, 3);
    const withoutDual = await perTokenGradient(signs, null);
    lossMask.forEach((m, index) => {
      if (m === 0) return;
      if (signs[index]! > 0) {
        // A > 0 beyond 1 + eps_high: clipped, no gradient, dual clip or not.
        expect(Math.abs(withDual[index]!)).toBe(0);
        expect(Math.abs(withoutDual[index]!)).toBe(0);
      } else {
        // A < 0: the plain surrogate pushes the ratio down (gradient -A rho / 3 rows), the dual clip caps it flat.
        expect(withoutDual[index]).toBeCloseTo(Math.exp(1.5) / 3, 4);
        expect(Math.abs(withDual[index]!)).toBe(0);
      }
    });
    const positiveOnly = signs.map(Math.abs);
    expect(await perTokenGradient(positiveOnly, 3)).toEqual(await perTokenGradient(positiveOnly, null));
  });

  it('rejects NaN advantages naming the position, and bad config fields by name', () => {
    const broken = [...advantages];
    broken[8] = Number.NaN;
    expect(() =>
      policyLoss({
        logProbs: tensor(logProbs),
        oldLogProbs: tensor(oldLogProbs),
        advantages: tensor(broken),
        lossMask: tensor(lossMask),
      }),
    ).toThrow('policyLoss: advantages[8] (row 1, column 2) is NaN');
    const input = {
      logProbs: tensor(logProbs),
      oldLogProbs: tensor(oldLogProbs),
      advantages: tensor(advantages),
      lossMask: tensor(lossMask),
    };
    expect(() => policyLoss(input, { clipLow: 1.2 })).toThrow('config.clipLow must be in [0, 1)');
    expect(() => policyLoss(input, { dualClip: 0.5 })).toThrow(
      'config.dualClip must be a finite number > 1 or null',
    );
    expect(() => policyLoss(input, { aggregation: 'mean' as LossAggregation })).toThrow(
      'config.aggregation must be one of',
    );
    expect(() => policyLoss(input, { klCoef: 0.1 })).toThrow('klCoef > 0 needs input.refLogProbs');
    expect(() => policyLoss(input, { entropyCoef: 0.1 })).toThrow(
      'entropyCoef is non-zero but input.entropy is missing',
    );
    expect(() => policyLoss(input, { name: 'nope' })).toThrow(
      'unknown policy loss "nope"; registered: cispo, gspo, vanilla',
    );
    expect(() => policyLoss({ ...input, lossMask: tf.zeros([B, T + 1]) as tf.Tensor2D })).toThrow(
      'input.lossMask has shape [3, 7], expected [3, 6]',
    );
  });

  it('keeps the tensor count flat', () => {
    const before = tf.memory().numTensors;
    for (let step = 0; step < 3; step++) {
      tf.tidy(() => {
        run({ ...baseConfig, klCoef: 0.1, entropyCoef: 0.1 });
      });
    }
    expect(tf.memory().numTensors).toBe(before);
  });
});
