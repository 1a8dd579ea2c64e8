import * as tf from '@tensorflow/tfjs';
import { tokenLogProbsAndEntropy } from '../logprobs/token-log-probs';
import { aggregationWeights } from '../loss/aggregation';
import { policyLoss } from '../loss/policy-loss';
import {
  type PolicyLossConfig,
  type ResolvedPolicyLossConfig,
  resolvePolicyLossConfig,
} from '../loss/policy-loss-config';
import { AdamW, type AdamWConfig, type AdamWState } from '../optim/adamw';
import { clipScale, globalGradientNorm } from '../optim/gradient-norm';
import { type LearningRateSchedule, learningRateAt, validateSchedule } from '../optim/lr-schedule';
import { alignToTargets, sliceRows, type TargetAlignedBatch, type UpdateBatch } from './update-batch';

/**
 * The policy: token ids [B, T] (int32) to next-token logits [B, T, V]. For packed rows it also receives the
 * sequence id of every token [B, T] (int32, negative = padding) to keep attention inside each sequence.
 */
export type PolicyModel = (tokens: tf.Tensor2D, sequenceIds?: tf.Tensor2D) => tf.Tensor3D;

export interface GrpoUpdaterOptions {
  model: PolicyModel;
  /** The trainable variables the model reads; the optimizer updates exactly these. */
  variables: readonly tf.Variable[];
  /** Peak learning rate. Default 1e-6 (ALGORITHMS.md section 5, real checkpoints). */
  learningRate?: number;
  /** Default constant. */
  schedule?: LearningRateSchedule;
  adamW?: AdamWConfig;
  /** Global gradient norm clip. Default 1; null turns clipping off (the norm is still reported). */
  maxGradNorm?: number | null;
  loss?: PolicyLossConfig;
  /** Passes over each batch, with the old log-probs fixed. Default 1. */
  ppoEpochs?: number;
  /** Rows per optimizer step. Default: the whole batch, one step per epoch. */
  miniBatchRows?: number;
  /** Rows per forward/backward pass; gradients accumulate over a mini-batch. Default: the mini-batch. */
  microBatchRows?: number;
  /** Sampling temperature of the rollouts, applied to the logits. Default 1. */
  temperature?: number;
  /** Token positions per chunk of the log-softmax (tokenLogProbsAndEntropy's chunkTokens). */
  chunkTokens?: number;
}

/** What one optimizer step did. */
export interface StepMetrics {
  /** Optimizer steps taken before this one (skipped steps do not count). */
  step: number;
  epoch: number;
  miniBatch: number;
  learningRate: number;
  /**
   * loss, pgLoss, kl (summed over micro-batches: the mini-batch's aggregated loss) and the token-mean
   * diagnostics of policyLoss (approxKl, meanRatio, entropy, clip fractions, ...) averaged over loss tokens.
   */
  losses: Record<string, number>;
  /** Global gradient norm before clipping. */
  gradNorm: number;
  /** Loss tokens in the mini-batch. */
  tokens: number;
  /**
   * True when the step was refused, weights and optimizer state untouched: by the NaN/Inf guard (non-finite
   * loss or gradient norm) or because the mini-batch has no loss tokens.
   */
  skipped: boolean;
  skipReason?: string;
}

export interface UpdateReport {
  steps: StepMetrics[];
  /** Steps the NaN/Inf guard skipped. */
  skippedSteps: number;
}

/** Metrics that are partial sums of the mini-batch's aggregated loss; the others are token means. */
const ADDITIVE_METRICS = new Set(['loss', 'pgLoss', 'kl']);

/**
 * The GRPO/PPO learner step (ALGORITHMS.md section 5): for each of ppoEpochs passes over the batch, for each
 * mini-batch, accumulate the gradient of policyLoss over micro-batches (aggregation weights computed over the
 * whole mini-batch, so accumulation equals one big batch), refuse the step if the loss or the gradient norm is
 * not finite, clip the global norm, and apply AdamW at the scheduled learning rate.
 */
export class GrpoUpdater {
  private readonly options: Required<
    Omit<GrpoUpdaterOptions, 'miniBatchRows' | 'microBatchRows' | 'chunkTokens' | 'adamW' | 'loss'>
  > &
    Pick<GrpoUpdaterOptions, 'miniBatchRows' | 'microBatchRows' | 'chunkTokens'>;
  private readonly lossConfig: ResolvedPolicyLossConfig;
  private readonly optimizer: AdamW;

  constructor(options: GrpoUpdaterOptions) {
    this.options = {
      model: options.model,
      variables: options.variables,
      learningRate: options.learningRate ?? 1e-6,
      schedule: options.schedule ?? { kind: 'constant' },
      maxGradNorm: options.maxGradNorm === undefined ? 1 : options.maxGradNorm,
      ppoEpochs: options.ppoEpochs ?? 1,
      temperature: options.temperature ?? 1,
      miniBatchRows: options.miniBatchRows,
      microBatchRows: options.microBatchRows,
      chunkTokens: options.chunkTokens,
    };
    const fail = (field: string, expected: string, value: unknown): never => {
      throw new Error(`GrpoUpdater options.${field} must be ${expected}, got ${String(value)}`);
    };
    const { learningRate, maxGradNorm, ppoEpochs, miniBatchRows, microBatchRows, variables } = this.options;
    if (variables.length === 0) fail('variables', 'a non-empty list', 'an empty list');
    if (!(learningRate > 0 && Number.isFinite(learningRate)))
      fail('learningRate', 'a positive number', learningRate);
    if (maxGradNorm !== null && !(maxGradNorm > 0)) fail('maxGradNorm', 'positive or null', maxGradNorm);
    if (!(Number.isInteger(ppoEpochs) && ppoEpochs >= 1)) fail('ppoEpochs', 'an integer >= 1', ppoEpochs);
    const { temperature } = this.options;
    if (!(temperature > 0 && Number.isFinite(temperature)))
      fail('temperature', 'a positive number', temperature);
    for (const [field, value] of [
      ['miniBatchRows', miniBatchRows],
      ['microBatchRows', microBatchRows],
    ] as const) {
      if (value !== undefined && !(Number.isInteger(value) && value >= 1))
        fail(field, 'an integer >= 1', value);
    }
    validateSchedule(this.options.schedule);
    this.lossConfig = resolvePolicyLossConfig(options.loss);
    this.optimizer = new AdamW(variables, options.adamW);
  }

  /** Optimizer steps applied so far; the learning-rate schedule reads it. */
  get step(): number {
    return this.optimizer.steps;
  }

  /** The optimizer's step count and moments, for a checkpoint from which a run resumes exactly. */
  exportOptimizerState(): AdamWState {
    return this.optimizer.exportState();
  }

  /** Restores what {@link exportOptimizerState} returned (the learning-rate schedule continues from its step). */
  importOptimizerState(state: AdamWState): void {
    this.optimizer.importState(state);
  }

  /** Runs every PPO epoch over `batch` and returns one StepMetrics per optimizer step attempted. */
  async update(batch: UpdateBatch): Promise<UpdateReport> {
    const aligned = alignToTargets(batch);
    if (this.lossConfig.klCoef > 0 && aligned.refLogProbs === undefined) {
      throw new Error('GrpoUpdater.update: loss.klCoef > 0 needs batch.refLogProbs');
    }
    if (aligned.oldLogProbs === undefined) aligned.oldLogProbs = await this.currentLogProbs(aligned);
    const miniRows = Math.min(this.options.miniBatchRows ?? aligned.rows, aligned.rows);
    const steps: StepMetrics[] = [];
    for (let epoch = 0; epoch < this.options.ppoEpochs; epoch++) {
      for (let start = 0, miniBatch = 0; start < aligned.rows; start += miniRows, miniBatch++) {
        const rows = Math.min(miniRows, aligned.rows - start);
        steps.push({ ...(await this.optimizerStep(sliceRows(aligned, start, rows))), epoch, miniBatch });
      }
    }
    return { steps, skippedSteps: steps.filter((step) => step.skipped).length };
  }

  /** Frees the optimizer state (the model's variables belong to the caller). */
  dispose(): void {
    this.optimizer.dispose();
  }

  private async optimizerStep(
    miniBatch: TargetAlignedBatch,
  ): Promise<Omit<StepMetrics, 'epoch' | 'miniBatch'>> {
    const weights = aggregationWeights(
      {
        rows: miniBatch.rows,
        columns: miniBatch.columns,
        lossMask: miniBatch.lossMask,
        sequenceIds: miniBatch.targetSequenceIds,
      },
      this.lossConfig.aggregation,
      { horizon: this.lossConfig.horizon },
    );
    const tokens = miniBatch.lossMask.reduce((sum, value) => sum + value, 0);
    const learningRate = learningRateAt(
      this.options.learningRate,
      this.options.schedule,
      this.optimizer.steps,
    );
    if (tokens === 0) {
      // Nothing to learn from; stepping anyway would still apply weight decay and stale momentum.
      const reason = 'no loss tokens in the mini-batch; weights and optimizer state left unchanged';
      return {
        step: this.optimizer.steps,
        learningRate,
        losses: {},
        gradNorm: 0,
        tokens,
        skipped: true,
        skipReason: reason,
      };
    }
    const microRows = Math.min(this.options.microBatchRows ?? miniBatch.rows, miniBatch.rows);
    const { variables } = this.options;
    let gradients: (tf.Tensor | null)[] = variables.map(() => null);
    const sums: Record<string, number> = {};
    try {
      for (let start = 0; start < miniBatch.rows; start += microRows) {
        const micro = sliceRows(miniBatch, start, Math.min(microRows, miniBatch.rows - start));
        const microWeights = weights.slice(
          start * miniBatch.columns,
          (start + micro.rows) * miniBatch.columns,
        );
        const microTokens = micro.lossMask.reduce((sum, value) => sum + value, 0);
        const { grads, metrics } = this.microBatchGradients(micro, microWeights);
        gradients = variables.map((_, index) => accumulate(gradients[index] ?? null, grads[index] ?? null));
        const names = Object.keys(metrics);
        const stacked = tf.stack(names.map((name) => metrics[name]!));
        const values = await stacked.data();
        tf.dispose([stacked, ...Object.values(metrics)]);
        names.forEach((name, index) => {
          const value = values[index]!;
          sums[name] = (sums[name] ?? 0) + (ADDITIVE_METRICS.has(name) ? value : value * microTokens);
        });
      }
      const losses = Object.fromEntries(
        Object.entries(sums).map(([name, sum]) => [
          name,
          ADDITIVE_METRICS.has(name) ? sum : sum / Math.max(tokens, 1),
        ]),
      );
      const normTensor = globalGradientNorm(gradients);
      const gradNorm = (await normTensor.data())[0]!;
      normTensor.dispose();
      const report = { step: this.optimizer.steps, learningRate, losses, gradNorm, tokens };
      const nonFinite = !Number.isFinite(losses.loss ?? Number.NaN)
        ? 'loss'
        : !Number.isFinite(gradNorm)
          ? 'gradient norm'
          : undefined;
      if (nonFinite !== undefined) {
        const value = nonFinite === 'loss' ? losses.loss : gradNorm;
        return {
          ...report,
          skipped: true,
          skipReason: `non-finite ${nonFinite} (${value}); weights and optimizer state left unchanged`,
        };
      }
      const scale = this.options.maxGradNorm === null ? 1 : clipScale(gradNorm, this.options.maxGradNorm);
      const clipped = scale === 1 ? gradients : gradients.map((g) => (g === null ? null : tf.mul(g, scale)));
      this.optimizer.apply(clipped, learningRate);
      if (clipped !== gradients) tf.dispose(clipped.filter((g): g is tf.Tensor => g !== null));
      return { ...report, skipped: false };
    } finally {
      tf.dispose(gradients.filter((g): g is tf.Tensor => g !== null));
    }
  }

  /** Loss gradients of one micro-batch, aligned with the variables, and its metric scalars (caller disposes). */
  private microBatchGradients(
    micro: TargetAlignedBatch,
    weights: Float32Array,
  ): { grads: (tf.Tensor | null)[]; metrics: Record<string, tf.Scalar> } {
    const { variables } = this.options;
    let metrics: Record<string, tf.Scalar> = {};
    const shape: [number, number] = [micro.rows, micro.columns];
    const { value, grads } = tf.variableGrads(() => {
      const { logProbs, entropy } = this.forward(micro);
      const result = policyLoss(
        {
          logProbs,
          entropy,
          oldLogProbs: tf.tensor2d(micro.oldLogProbs!, shape),
          advantages: tf.tensor2d(micro.advantages, shape),
          lossMask: tf.tensor2d(micro.lossMask, shape),
          refLogProbs: micro.refLogProbs === undefined ? undefined : tf.tensor2d(micro.refLogProbs, shape),
          tokenWeights: tf.tensor2d(weights, shape),
        },
        this.lossConfig,
      );
      // The metrics outlive the gradient scope, which disposes everything the loss function does not return.
      metrics = Object.fromEntries(
        Object.entries(result.metrics).map(([name, scalar]) => [name, tf.keep(scalar)]),
      );
      return result.loss;
    }, variables as tf.Variable[]);
    metrics.loss = value;
    return { grads: variables.map((variable) => grads[variable.name] ?? null), metrics };
  }

  /** log pi_theta and entropy of the aligned targets under the current weights. */
  private forward(micro: TargetAlignedBatch): { logProbs: tf.Tensor2D; entropy: tf.Tensor2D } {
    const shape: [number, number] = [micro.rows, micro.columns];
    const inputs = tf.tensor2d(micro.inputs, shape, 'int32');
    const sequenceIds =
      micro.inputSequenceIds === undefined ? undefined : tf.tensor2d(micro.inputSequenceIds, shape, 'int32');
    const logits = this.options.model(inputs, sequenceIds);
    const vocab = logits.shape[2];
    const outOfRange = micro.targets.findIndex((token) => token >= vocab);
    if (outOfRange >= 0) {
      throw new Error(
        `GrpoUpdater.update: token id ${micro.targets[outOfRange]} is outside the model's vocabulary of ${vocab}`,
      );
    }
    return tokenLogProbsAndEntropy(logits, tf.tensor2d(micro.targets, shape, 'int32'), {
      temperature: this.options.temperature,
      chunkTokens: this.options.chunkTokens,
    });
  }

  /** log pi_theta of every target under the current weights (no gradient), by micro-batch. */
  private async currentLogProbs(aligned: TargetAlignedBatch): Promise<Float32Array> {
    const out = new Float32Array(aligned.rows * aligned.columns);
    const microRows = Math.min(this.options.microBatchRows ?? aligned.rows, aligned.rows);
    for (let start = 0; start < aligned.rows; start += microRows) {
      const micro = sliceRows(aligned, start, Math.min(microRows, aligned.rows - start));
      const logProbs = tf.tidy(() => this.forward(micro).logProbs);
      out.set(await logProbs.data(), start * aligned.columns);
      logProbs.dispose();
    }
    return out;
  }
}

/** previous + next, disposing both inputs (null means no gradient yet). */
function accumulate(previous: tf.Tensor | null, next: tf.Tensor | null): tf.Tensor | null {
  if (previous === null) return next;
  if (next === null) return previous;
  const sum = tf.add(previous, next);
  tf.dispose([previous, next]);
  return sum;
}
