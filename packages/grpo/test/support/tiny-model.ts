import * as tf from '@tensorflow/tfjs';
import { linear, type PolicyModel } from '../../src/index';
import { aggregate64, kl64, logProbAndEntropy64, vanillaPerToken64 } from './reference64';

/**
 * The tiny policy of the updater tests: logits = onehot(token) W + b with W [V, V], b [V]. Position-independent,
 * so padded and packed layouts of the same sequences give the same log-probs.
 */
export function tinyModel(vocab: number, weights: readonly number[], bias: readonly number[]) {
  const w = tf.variable(tf.tensor2d(weights as number[], [vocab, vocab]));
  const b = tf.variable(tf.tensor1d(bias as number[]));
  const model: PolicyModel = (tokens) =>
    tf.tidy(
      () =>
        linear(
          tf.cast(tf.oneHot(tokens, vocab), 'float32'),
          w as tf.Variable<tf.Rank.R2>,
          b as tf.Variable<tf.Rank.R1>,
        ) as tf.Tensor3D,
    );
  return { model, variables: [w, b], dispose: () => tf.dispose([w, b]) };
}

export interface Batch64 {
  rows: number;
  columns: number;
  tokens: number[];
  lossMask: number[];
  advantages: number[];
  oldLogProbs: number[];
  refLogProbs: number[];
}

export interface Loss64Config {
  vocab: number;
  temperature: number;
  clipLow: number;
  clipHigh: number;
  dualClip: number | null;
  klCoef: number;
  entropyCoef: number;
  aggregation: string;
}

/** log pi and entropy of token t (t >= 1 of each row) given token t - 1, under params = [W row-major, b]. */
export function tokenStats64(
  params: readonly number[],
  vocab: number,
  previous: number,
  token: number,
  temperature: number,
) {
  const logits = Array.from(
    { length: vocab },
    (_, j) => params[previous * vocab + j]! + params[vocab * vocab + j]!,
  );
  return logProbAndEntropy64(logits, token, temperature);
}

/** The updater's loss for one batch in float64, written per token from ALGORITHMS.md section 5. */
export function updaterLoss64(params: readonly number[], batch: Batch64, config: Loss64Config): number {
  const { rows, columns } = batch;
  const perToken: number[] = [];
  const kl: number[] = [];
  const entropy: number[] = [];
  const mask: number[] = [];
  for (let row = 0; row < rows; row++) {
    for (let column = 0; column < columns; column++) {
      // Aligned to targets: position `column` predicts token column + 1; the last position predicts nothing.
      const index = row * columns + column + 1;
      if (column === columns - 1) {
        for (const values of [perToken, kl, entropy, mask]) values.push(0);
        continue;
      }
      const stats = tokenStats64(
        params,
        config.vocab,
        batch.tokens[index - 1]!,
        batch.tokens[index]!,
        config.temperature,
      );
      perToken.push(
        vanillaPerToken64(stats.logProb, batch.oldLogProbs[index]!, batch.advantages[index]!, config),
      );
      kl.push(kl64('k3', stats.logProb, batch.refLogProbs[index]!));
      entropy.push(stats.entropy);
      mask.push(batch.lossMask[index]!);
    }
  }
  const aggregate = (values: number[]) => aggregate64(values, mask, columns, config.aggregation);
  return aggregate(perToken) + config.klCoef * aggregate(kl) - config.entropyCoef * aggregate(entropy);
}

export interface AdamW64 {
  lr: number[];
  beta1: number;
  beta2: number;
  epsilon: number;
  weightDecay: number;
  /** Whether parameter i decays. */
  decays: (index: number) => boolean;
}

/** Applies AdamW steps in float64 to params given a gradient function and the global-norm clip. */
export function adamW64(
  initial: readonly number[],
  gradient: (params: number[], step: number) => number[],
  config: AdamW64,
  maxGradNorm: number,
): { params: number[]; norms: number[] } {
  const params = [...initial];
  const m = params.map(() => 0);
  const v = params.map(() => 0);
  const norms: number[] = [];
  config.lr.forEach((lr, step) => {
    const g = gradient(params, step);
    const norm = Math.sqrt(g.reduce((sum, value) => sum + value * value, 0));
    norms.push(norm);
    const scale = Math.min(1, maxGradNorm / (norm + 1e-6));
    const t = step + 1;
    params.forEach((p, i) => {
      const gi = g[i]! * scale;
      m[i] = config.beta1 * m[i]! + (1 - config.beta1) * gi;
      v[i] = config.beta2 * v[i]! + (1 - config.beta2) * gi * gi;
      const update =
        m[i]! / (1 - config.beta1 ** t) / (Math.sqrt(v[i]! / (1 - config.beta2 ** t)) + config.epsilon);
      params[i] = (config.decays(i) ? p * (1 - lr * config.weightDecay) : p) - lr * update;
    });
  });
  return { params, norms };
}
