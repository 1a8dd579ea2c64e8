import type { SftExample } from '@taorl/data';
import {
  AdamW,
  clipScale,
  globalGradientNorm,
  type LearningRateSchedule,
  learningRateAt,
  sftLoss,
  tokenLogProbsAndEntropy,
} from '@taorl/grpo';
import * as tf from '@tensorflow/tfjs';
import type { Policy } from '../model/policy.js';

export interface SftTrainerOptions {
  learningRate: number;
  schedule: LearningRateSchedule;
  maxGradNorm: number;
  padId: number;
}

export interface SftStepStats {
  /** Cross-entropy per loss token (nats). */
  loss: number;
  gradNorm: number;
  learningRate: number;
  /** Loss tokens in the batch. */
  tokens: number;
}

/** Inputs, next-token targets and the targets' loss mask of a right-padded batch. */
function targetAligned(sequences: readonly SftExample[], padId: number) {
  const batch = sequences;
  const width = Math.max(...sequences.map((s) => s.inputIds.length)) - 1;
  const inputs = new Int32Array(batch.length * width).fill(padId);
  const targets = new Int32Array(batch.length * width).fill(padId);
  const mask = new Float32Array(batch.length * width);
  sequences.forEach((s, row) => {
    const n = s.inputIds.length - 1;
    inputs.set(s.inputIds.subarray(0, n), row * width);
    targets.set(s.inputIds.subarray(1), row * width);
    for (let t = 0; t < n; t++) mask[row * width + t] = s.lossMask[t + 1]!;
  });
  return { inputs, targets, mask, shape: [batch.length, width] as [number, number] };
}

/**
 * Supervised fine-tuning on end-to-end trajectories (ALGORITHMS.md section 6): token-mean cross-entropy on tokens
 * with lossMask 1 only (assistant text and code, never the prompt or tool output), global grad-norm clip, AdamW
 * with a warm-up + cosine schedule, all from @taorl/grpo.
 */
export class SftTrainer {
  private readonly optimizer: AdamW;
  private readonly variables: tf.Variable[];

  constructor(
    private readonly policy: Policy,
    private readonly options: SftTrainerOptions,
  ) {
    this.variables = policy.trainableVariables();
    this.optimizer = new AdamW(this.variables);
  }

  get steps(): number {
    return this.optimizer.steps;
  }

  /** One optimizer step on a batch of token sequences with their loss masks (1 = train on this token). */
  async step(batch: readonly SftExample[]): Promise<SftStepStats> {
    const { inputs, targets, mask, shape } = targetAligned(batch, this.options.padId);
    const tokens = mask.reduce((sum, m) => sum + m, 0);
    const { value, grads } = tf.variableGrads(() => {
      const logits = this.policy.logits(tf.tensor2d(inputs, shape, 'int32'));
      const { logProbs } = tokenLogProbsAndEntropy(logits, tf.tensor2d(targets, shape, 'int32'));
      return sftLoss({ logProbs, lossMask: tf.tensor2d(mask, shape) });
    }, this.variables);
    const gradients = this.variables.map((variable) => grads[variable.name] ?? null);
    const norm = globalGradientNorm(gradients);
    const [loss, gradNorm] = [(await value.data())[0]!, (await norm.data())[0]!];
    const learningRate = learningRateAt(
      this.options.learningRate,
      this.options.schedule,
      this.optimizer.steps,
    );
    if (Number.isFinite(loss) && Number.isFinite(gradNorm)) {
      const scale = clipScale(gradNorm, this.options.maxGradNorm);
      const clipped = gradients.map((g) => (g === null ? null : tf.mul(g, scale)));
      this.optimizer.apply(clipped, learningRate);
      tf.dispose(clipped.filter((g): g is tf.Tensor => g !== null));
    }
    tf.dispose([value, norm, ...Object.values(grads)]);
    return { loss, gradNorm, learningRate, tokens };
  }

  dispose(): void {
    this.optimizer.dispose();
  }
}
