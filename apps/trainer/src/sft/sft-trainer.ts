import type { SftExample } from '@taorl/data';
import {
  AdamW,
  type AdamWState,
  type GuardedStep,
  globalGradientNorm,
  guardedStep,
  type LearningRateSchedule,
  learningRateAt,
} from '@taorl/grpo';
import type { Policy } from '@taorl/model';
import { shardGradient, type WeightedTokenBatch } from '@taorl/model';
import * as tf from '@tensorflow/tfjs';
import type { ShardReply } from '../workers/worker-job.js';
import { balancedShards } from './batch-shards.js';
import { lossTokenCount, weightedTokenBatch } from './token-batch.js';

/** Where an SFT step's gradient shards are computed: the session's worker pool (`PolicyWorkers`). */
export interface ShardWorkers {
  /** Threads, each computing one shard of a step at once. */
  readonly count: number;
  /** The weighted loss and gradient of batches[i], in order, on the policy's current weights. */
  shardGradients(batches: readonly WeightedTokenBatch[]): Promise<ShardReply[]>;
}

export interface SftTrainerOptions {
  learningRate: number;
  schedule: LearningRateSchedule;
  maxGradNorm: number;
  padId: number;
  /**
   * Data parallelism: each step's batch is split into `workers.count` shards of about equal padded size, whose
   * gradients the workers compute at once, each thread on its own replica of the policy (the session's pool,
   * config `workers` > 1). Without it the main thread computes the whole batch.
   */
  workers?: ShardWorkers;
}

/**
 * What one step did. `skipped` and `skipReason` as in @taorl/grpo's StepMetrics: a step whose loss or gradient
 * norm is not finite is refused (weights and optimizer state untouched) and says so, as GrpoUpdater does.
 */
export interface SftStepStats extends GuardedStep {
  /** Cross-entropy per loss token (nats). */
  loss: number;
  gradNorm: number;
  learningRate: number;
  /** Loss tokens in the batch. */
  tokens: number;
}

/** A full batch's token-mean loss and its gradient per variable (null where the loss does not reach one). */
interface BatchGradient {
  loss: number;
  gradients: (tf.Tensor | null)[];
}

/**
 * Supervised fine-tuning on end-to-end trajectories (ALGORITHMS.md section 6): token-mean cross-entropy on tokens
 * with lossMask 1 only (assistant text and code, never the prompt or tool output), global grad-norm clip, AdamW
 * with a warm-up + cosine schedule, all from @taorl/grpo.
 *
 * With `workers` the gradient is data-parallel: every shard's loss is weighted by the whole batch's loss-token
 * count, so the shards' gradients add up to exactly the full batch's token-mean gradient (up to float summation
 * order), and the clip and the optimizer step see the same gradient as on the main thread alone.
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

  /** The optimizer's moments and step (the schedule position follows the step), for a checkpoint. */
  exportOptimizerState(): AdamWState {
    return this.optimizer.exportState();
  }

  /** Continues from a checkpoint's optimizer state: the next step is exactly the one an unbroken run takes. */
  importOptimizerState(state: AdamWState): void {
    this.optimizer.importState(state);
  }

  /** One optimizer step on a batch of token sequences with their loss masks (1 = train on this token). */
  async step(batch: readonly SftExample[]): Promise<SftStepStats> {
    const tokens = lossTokenCount(batch);
    const { workers } = this.options;
    const shards =
      workers === undefined
        ? [batch]
        : balancedShards(batch, (example) => example.inputIds.length, workers.count);
    const { loss, gradients } = await this.batchGradient(
      shards.map((shard) => weightedTokenBatch(shard, this.options.padId, tokens)),
    );
    const norm = globalGradientNorm(gradients);
    const gradNorm = (await norm.data())[0]!;
    const learningRate = learningRateAt(
      this.options.learningRate,
      this.options.schedule,
      this.optimizer.steps,
    );
    try {
      const guarded = guardedStep(this.optimizer, gradients, {
        loss,
        gradNorm,
        maxGradNorm: this.options.maxGradNorm,
        learningRate,
      });
      return { loss, gradNorm, learningRate, tokens, ...guarded };
    } finally {
      tf.dispose([norm, ...gradients.filter((g): g is tf.Tensor => g !== null)]);
    }
  }

  /** Frees the optimizer state (the workers are the session's: it disposes them). */
  dispose(): void {
    this.optimizer.dispose();
  }

  /** The batch's gradient on this thread, or each shard's on the workers and then their sum in shard order. */
  private async batchGradient(batches: readonly WeightedTokenBatch[]): Promise<BatchGradient> {
    const { workers } = this.options;
    if (workers === undefined) {
      const { loss, gradients } = shardGradient(this.policy, this.variables, batches[0]!);
      const value = (await loss.data())[0]!;
      loss.dispose();
      return { loss: value, gradients };
    }
    const replies = await workers.shardGradients(batches);
    const gradients = this.variables.map((variable, i) =>
      replies[0]!.gradients[i] === null
        ? null
        : tf.tidy(() => tf.addN(replies.map((reply) => tf.tensor(reply.gradients[i]!, variable.shape)))),
    );
    return { loss: replies.reduce((sum, reply) => sum + reply.loss, 0), gradients };
  }
}
