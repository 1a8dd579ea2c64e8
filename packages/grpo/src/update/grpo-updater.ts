import * as tf from '@tensorflow/tfjs';
import { type RolloutCorrectionOptions, resolveRolloutCorrection } from '../correction/correction-options';
import { type CorrectionMetrics, rolloutCorrection } from '../correction/rollout-correction';
import { aggregationWeights } from '../loss/aggregation';
import {
  type PolicyLossConfig,
  type ResolvedPolicyLossConfig,
  resolvePolicyLossConfig,
} from '../loss/policy-loss-config';
import { AdamW, type AdamWConfig, type AdamWState } from '../optim/adamw';
import { globalGradientNorm } from '../optim/gradient-norm';
import { guardedStep } from '../optim/guarded-step';
import { type LearningRateSchedule, learningRateAt, validateSchedule } from '../optim/lr-schedule';
import {
  type GradientSettings,
  type MicroBatch,
  type MicroBatchGradient,
  microBatchGradient,
  type PolicyModel,
  targetLogProbs,
} from './micro-batch-gradient';
import {
  alignToTargets,
  equalRowRanges,
  sliceRows,
  type TargetAlignedBatch,
  type UpdateBatch,
} from './update-batch';

/**
 * Computes the gradients of a step's micro-batches elsewhere, e.g. on worker threads with replicas of the model:
 * each result must be what `microBatchGradient` computes for its micro-batch on the variables' current values
 * (they change after every optimizer step: the replicas must get them before each call). Results in the order of
 * the micro-batches.
 */
export type MicroBatchGradients = (
  microBatches: readonly MicroBatch[],
  settings: GradientSettings,
) => Promise<MicroBatchGradient<Float32Array>[]>;

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
  /**
   * Most rows per forward/backward pass; gradients accumulate over a mini-batch, which is split into the fewest
   * micro-batches of equal size (give or take one row) within this bound. Default: the mini-batch.
   */
  microBatchRows?: number;
  /** Sampling temperature of the rollouts, applied to the logits. Default 1. */
  temperature?: number;
  /** Token positions per chunk of the log-softmax (tokenLogProbsAndEntropy's chunkTokens). */
  chunkTokens?: number;
  /**
   * Data parallelism: computes each step's micro-batch gradients elsewhere (see MicroBatchGradients); this thread
   * then sums them in micro-batch order, exactly as it sums its own, and applies the step. Default: this thread
   * computes them one after the other.
   */
  microBatchGradients?: MicroBatchGradients;
  /**
   * Rollout correction (rolloutCorrection): every batch must carry rolloutLogProbs, the engine's log-probs; pi_old
   * is the batch's oldLogProbs or, when left out, the trainer's own before the first epoch, and each token's
   * policy-gradient term is weighted by the truncated pi_old / pi_rollout, rejected tokens leaving the loss.
   * Default: none (batch.rolloutLogProbs, when given, only yields the mismatch metrics).
   */
  rolloutCorrection?: RolloutCorrectionOptions | null;
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
  /**
   * Engine-trainer mismatch and what the rollout correction did, when the batch carried rolloutLogProbs (with no
   * rolloutCorrection option: the metrics of weights `none`, nothing weighted or masked).
   */
  correction?: CorrectionMetrics;
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
    Omit<
      GrpoUpdaterOptions,
      | 'miniBatchRows'
      | 'microBatchRows'
      | 'chunkTokens'
      | 'adamW'
      | 'loss'
      | 'microBatchGradients'
      | 'rolloutCorrection'
    >
  > &
    Pick<GrpoUpdaterOptions, 'miniBatchRows' | 'microBatchRows' | 'chunkTokens' | 'microBatchGradients'>;
  private readonly lossConfig: ResolvedPolicyLossConfig;
  /** The rollout correction's options (checked when constructed) and whether its weights apply; null when off. */
  private readonly correction: { options: RolloutCorrectionOptions; weighs: boolean } | null;
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
      microBatchGradients: options.microBatchGradients,
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
    this.correction =
      options.rolloutCorrection == null
        ? null
        : {
            options: options.rolloutCorrection,
            weighs: resolveRolloutCorrection(options.rolloutCorrection).weights !== 'none',
          };
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
    if (this.correction !== null && aligned.rolloutLogProbs === undefined) {
      throw new Error(
        'GrpoUpdater.update: options.rolloutCorrection needs batch.rolloutLogProbs, the rollout engine log-probs',
      );
    }
    if (aligned.oldLogProbs === undefined) aligned.oldLogProbs = await this.currentLogProbs(aligned);
    const correction = aligned.rolloutLogProbs === undefined ? undefined : this.correct(aligned);
    const miniRows = Math.min(this.options.miniBatchRows ?? aligned.rows, aligned.rows);
    const steps: StepMetrics[] = [];
    for (let epoch = 0; epoch < this.options.ppoEpochs; epoch++) {
      for (let start = 0, miniBatch = 0; start < aligned.rows; start += miniRows, miniBatch++) {
        const rows = Math.min(miniRows, aligned.rows - start);
        steps.push({ ...(await this.optimizerStep(sliceRows(aligned, start, rows))), epoch, miniBatch });
      }
    }
    return {
      steps,
      skippedSteps: steps.filter((step) => step.skipped).length,
      ...(correction === undefined ? {} : { correction }),
    };
  }

  /**
   * Applies the rollout correction to the aligned batch (weights, and the loss mask without the rejected tokens)
   * and returns its metrics; without the option only the metrics, of weights `none`.
   */
  private correct(aligned: TargetAlignedBatch): CorrectionMetrics {
    const result = rolloutCorrection(
      {
        rows: aligned.rows,
        columns: aligned.columns,
        lossMask: aligned.lossMask,
        oldLogProbs: aligned.oldLogProbs!,
        rolloutLogProbs: aligned.rolloutLogProbs!,
        sequenceIds: aligned.targetSequenceIds,
      },
      this.correction?.options ?? { weights: 'none' },
    );
    if (this.correction !== null) {
      aligned.lossMask = result.lossMask;
      if (this.correction.weighs) aligned.importanceWeights = result.weights;
    }
    return result.metrics;
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
    const micros: MicroBatch[] = this.microBatchRanges(miniBatch.rows).map(({ start, rows }) => ({
      batch: sliceRows(miniBatch, start, rows),
      tokenWeights: weights.slice(start * miniBatch.columns, (start + rows) * miniBatch.columns),
    }));
    const { variables, model, microBatchGradients: elsewhere } = this.options;
    const settings = this.gradientSettings();
    const computed = elsewhere === undefined ? null : await elsewhere(micros, settings);
    if (computed !== null && computed.length !== micros.length) {
      throw new Error(
        `GrpoUpdater.update: options.microBatchGradients returned ${computed.length} results for ${micros.length} micro-batches`,
      );
    }
    let gradients: (tf.Tensor | null)[] = variables.map(() => null);
    const sums: Record<string, number> = {};
    try {
      for (const [index, micro] of micros.entries()) {
        const { gradients: grads, metrics } =
          computed === null
            ? await microBatchGradient(model, variables, micro, settings)
            : asTensors(computed[index]!, variables);
        // Summed in micro-batch order wherever they were computed, so the sum is the same bit for bit.
        gradients = variables.map((_, i) => accumulate(gradients[i] ?? null, grads[i] ?? null));
        const microTokens = micro.batch.lossMask.reduce((sum, value) => sum + value, 0);
        for (const [name, value] of Object.entries(metrics)) {
          sums[name] = (sums[name] ?? 0) + (ADDITIVE_METRICS.has(name) ? value : value * microTokens);
        }
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
      return {
        ...report,
        ...guardedStep(this.optimizer, gradients, {
          loss: losses.loss ?? Number.NaN,
          gradNorm,
          maxGradNorm: this.options.maxGradNorm,
          learningRate,
        }),
      };
    } finally {
      tf.dispose(gradients.filter((g): g is tf.Tensor => g !== null));
    }
  }

  private gradientSettings(): GradientSettings {
    const { temperature, chunkTokens } = this.options;
    return { loss: this.lossConfig, temperature, ...(chunkTokens === undefined ? {} : { chunkTokens }) };
  }

  /** The micro-batches of `rows` rows: equal parts of at most options.microBatchRows rows. */
  private microBatchRanges(rows: number): { start: number; rows: number }[] {
    return equalRowRanges(rows, this.options.microBatchRows ?? rows);
  }

  /** log pi_theta of every target under the current weights (no gradient), by micro-batch. */
  private async currentLogProbs(aligned: TargetAlignedBatch): Promise<Float32Array> {
    const out = new Float32Array(aligned.rows * aligned.columns);
    for (const { start, rows } of this.microBatchRanges(aligned.rows)) {
      const micro = sliceRows(aligned, start, rows);
      const logProbs = tf.tidy(() => targetLogProbs(this.options.model, micro, this.options).logProbs);
      out.set(await logProbs.data(), start * aligned.columns);
      logProbs.dispose();
    }
    return out;
  }
}

/** A result computed elsewhere as tensors on this thread's backend. */
function asTensors(
  result: MicroBatchGradient<Float32Array>,
  variables: readonly tf.Variable[],
): MicroBatchGradient {
  const gradients = result.gradients.map((values, i) =>
    values === null ? null : tf.tensor(values, variables[i]!.shape),
  );
  return { gradients, metrics: result.metrics };
}

/** previous + next, disposing both inputs (null means no gradient yet). */
function accumulate(previous: tf.Tensor | null, next: tf.Tensor | null): tf.Tensor | null {
  if (previous === null) return next;
  if (next === null) return previous;
  const sum = tf.add(previous, next);
  tf.dispose([previous, next]);
  return sum;
}
