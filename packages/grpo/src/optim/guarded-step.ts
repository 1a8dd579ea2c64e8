import * as tf from '@tensorflow/tfjs';
import type { AdamW } from './adamw';
import { clipScale } from './gradient-norm';

export interface GuardedStepInput {
  /** The step's loss and the global norm of `gradients` before clipping. */
  loss: number;
  gradNorm: number;
  /** null: no clipping. */
  maxGradNorm: number | null;
  learningRate: number;
}

/** Whether the guard let the step through; why not, when it refused it. */
export interface GuardedStep {
  skipped: boolean;
  skipReason?: string;
}

/**
 * The learners' one NaN/Inf policy (GrpoUpdater and any other learner on these parts, such as the trainer's SFT):
 * a step whose loss or gradient norm is not finite is refused before anything is written, weights and optimizer
 * state untouched, and the result says which value was not finite. Otherwise the gradients are clipped to
 * `maxGradNorm` (torch's clip_grad_norm_) and the optimizer steps at `learningRate`. The caller keeps ownership of
 * `gradients`.
 */
export function guardedStep(
  optimizer: AdamW,
  gradients: readonly (tf.Tensor | null)[],
  input: GuardedStepInput,
): GuardedStep {
  const nonFinite = !Number.isFinite(input.loss)
    ? `loss (${input.loss})`
    : !Number.isFinite(input.gradNorm)
      ? `gradient norm (${input.gradNorm})`
      : undefined;
  if (nonFinite !== undefined) {
    return {
      skipped: true,
      skipReason: `non-finite ${nonFinite}; weights and optimizer state left unchanged`,
    };
  }
  const scale = input.maxGradNorm === null ? 1 : clipScale(input.gradNorm, input.maxGradNorm);
  const clipped = scale === 1 ? gradients : gradients.map((g) => (g === null ? null : tf.mul(g, scale)));
  optimizer.apply(clipped, input.learningRate);
  if (clipped !== gradients) tf.dispose(clipped.filter((g): g is tf.Tensor => g !== null));
  return { skipped: false };
}
