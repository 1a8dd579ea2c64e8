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
import * as tf from '@tensorflow/tfjs';
import type { Policy } from '../model/policy.js';
import { TransformerPolicy } from '../model/transformer-policy.js';
import { balancedShards } from './batch-shards.js';
import type { ShardReply } from './gradient-protocol.js';
import { GradientWorkers } from './gradient-workers.js';
import { shardGradient } from '../model/shard-gradient.js';
import { lossTokenCount, type WeightedTokenBatch, weightedTokenBatch } from './token-batch.js';

export interface SftTrainerOptions {
  learningRate: number;
  schedule: LearningRateSchedule;
  maxGradNorm: number;
  padId: number;
  /**
   * Data parallelism (default 1): each step's batch is split into this many shards of about equal padded size,
   * whose gradients are computed at once, one on the main thread and each other one on a worker thread with its
   * own replica of the policy. Needs a `TransformerPolicy`.
   */
  workers?: number;
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
 * With `workers` > 1 the gradient is data-parallel: every shard's loss is weighted by the whole batch's loss-token
 * count, so the shards' gradients add up to exactly the full batch's token-mean gradient (up to float summation
 * order), and the clip and the optimizer step see the same gradient as with one worker.
 */
export class SftTrainer {
  private readonly optimizer: AdamW;
  private readonly variables: tf.Variable[];
  private readonly workers: GradientWorkers | null = null;

  constructor(
    private readonly policy: Policy,
    private readonly options: SftTrainerOptions,
  ) {
    this.variables = policy.trainableVariables();
    this.optimizer = new AdamW(this.variables);
    const workers = options.workers ?? 1;
    if (!Number.isInteger(workers) || workers < 1) {
      throw new RangeError(`SftTrainer: workers must be a positive integer, got ${workers}`);
    }
    if (workers > 1) {
      if (!(policy instanceof TransformerPolicy)) {
        throw new Error(
          'SftTrainer: workers > 1 needs a TransformerPolicy, whose config and weights start the replicas',
        );
      }
      this.workers = new GradientWorkers(policy, workers - 1);
    }
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
    const shards =
      this.workers === null
        ? [batch]
        : balancedShards(batch, (example) => example.inputIds.length, this.workers.count + 1);
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

  /** Frees the optimizer state and terminates the gradient workers; resolves once their threads have exited. */
  dispose(): Promise<void> {
    this.optimizer.dispose();
    return this.workers?.dispose() ?? Promise.resolve();
  }

  /** The first shard's gradient on this thread while the worker threads compute the others, then their sum. */
  private async batchGradient(batches: readonly WeightedTokenBatch[]): Promise<BatchGradient> {
    const [own, ...others] = batches as [WeightedTokenBatch, ...WeightedTokenBatch[]];
    // Settled into a value at once, so a worker failing while this thread computes is never an unhandled rejection.
    const remote: Promise<{ replies: ShardReply[] } | { error: Error }> =
      others.length === 0 || this.workers === null
        ? Promise.resolve({ replies: [] })
        : this.workers.shards(others).then(
            (replies) => ({ replies }),
            (error: Error) => ({ error }),
          );
    let local: ReturnType<typeof shardGradient>;
    try {
      local = shardGradient(this.policy, this.variables, own);
    } catch (error) {
      await remote;
      throw error;
    }
    const localLoss = (await local.loss.data())[0]!;
    local.loss.dispose();
    const settled = await remote;
    if ('error' in settled) {
      tf.dispose(local.gradients.filter((g): g is tf.Tensor => g !== null));
      throw settled.error;
    }
    const gradients = local.gradients.map((g, i) => {
      if (g === null || settled.replies.length === 0) return g;
      const sum = tf.tidy(() =>
        tf.addN([g, ...settled.replies.map((reply) => tf.tensor(reply.gradients[i]!, g.shape))]),
      );
      g.dispose();
      return sum;
    });
    return { loss: settled.replies.reduce((sum, reply) => sum + reply.loss, localLoss), gradients };
  }
}
