import type { GradientSettings, MicroBatch, MicroBatchGradient } from '@taorl/grpo';
import type { TransformerPolicy, WeightedTokenBatch } from '@taorl/model';
import type { GeneratedSequence, RolloutPolicy, SamplingParams } from '@taorl/rollout';
import type { FaultMode } from './replica-protocol.js';
import { ReplicaWorkers } from './replica-workers.js';
import type { TokenizerSource } from './tokenizer-source.js';
import type { ShardReply, WorkerJob, WorkerJobResult } from './worker-job.js';

type Result = WorkerJobResult[keyof WorkerJobResult];

interface QueuedCall {
  job: WorkerJob;
  resolve: (result: Result) => void;
  reject: (error: Error) => void;
}

/**
 * The trainer's one worker pool (config `workers` > 1): replicas of the trained policy on worker threads, each on
 * its own tfjs backend (worker-entry.ts), that run every job the main thread hands out: the rollouts' and
 * evaluations' `generate` calls (a `RolloutPolicy`), the RL update's micro-batch gradients (`microBatchGradients`,
 * for GrpoUpdater) and SFT's gradient shards (`shardGradients`, for SftTrainer). The rollout engine's lanes call
 * `generate` concurrently; each call, like each micro-batch or shard, goes to the next idle thread, in the order
 * of the calls.
 *
 * Which thread runs a job changes nothing in its result: a job depends only on its input (a `generate` call's
 * seed derives from step, lane and turn) and the weights, and every replica holds exactly the policy's weights,
 * sent before every rollout batch (`beforeRollout`, which the engine calls before a batch's first call), every
 * update and every SFT step, on the same backend as the main thread. So trajectories and RL updates are the same
 * with any number of workers, and the same as the policy's own computations on the main thread (`workers: 1`).
 *
 * A worker that fails or exits rejects the job it ran, every job in flight or queued, with its number and cause;
 * jobs are then refused until the next `beforeRollout`, `microBatchGradients` or `shardGradients` starts fresh
 * workers from the current weights.
 */
export class PolicyWorkers implements RolloutPolicy {
  readonly concurrentGenerate = true;
  readonly vocabSize: number;
  readonly maxSequenceLength: number;
  private readonly replicas: ReplicaWorkers<TokenizerSource, WorkerJob, Result>;
  /** Threads without a job, by index; empty while stopped. */
  private idle: number[] = [];
  private readonly queue: QueuedCall[] = [];
  private running = false;
  /** Why jobs are refused (a worker failed), until the next sync. */
  private failure: Error | null = null;
  /** Bumped when the threads are replaced, so a job of the stopped set does not hand its thread back. */
  private generation = 0;

  constructor(
    policy: TransformerPolicy,
    /** Worker threads. */
    readonly count: number,
    /** The session's tokenizer, which each worker loads to match stop strings. */
    tokenizer: TokenizerSource,
  ) {
    this.vocabSize = policy.vocabSize;
    this.maxSequenceLength = policy.maxSequenceLength;
    this.replicas = new ReplicaWorkers(policy, count, {
      label: 'policy worker',
      entry: { source: new URL('./worker-entry.ts', import.meta.url), built: 'policy-worker.js' },
      setup: tokenizer,
    });
  }

  /** Before a rollout batch: the replicas get the policy's current weights. */
  beforeRollout(): void {
    this.sync();
  }

  generate(prompts: readonly Int32Array[], sampling: SamplingParams): Promise<GeneratedSequence[]> {
    if (!this.running) {
      return Promise.reject(this.failure ?? new Error('policy workers: call beforeRollout before generate'));
    }
    const { decode: _local, ...sent } = sampling;
    return this.submit<'generate'>({ kind: 'generate', prompts: [...prompts], sampling: sent });
  }

  /**
   * The RL update's micro-batch gradients (GrpoUpdater's `microBatchGradients`), spread over the threads: the
   * replicas first get the policy's current weights, which the optimizer changed since the last call. A micro-batch
   * is a unit, never split, so each result is the one the main thread computes (same function, same weights, same
   * backend); GrpoUpdater sums them in micro-batch order, so the update is the same bit for bit with any number of
   * workers. A failing worker rejects the call (nothing is applied) with its number and cause.
   */
  microBatchGradients(
    micros: readonly MicroBatch[],
    settings: GradientSettings,
  ): Promise<MicroBatchGradient<Float32Array>[]> {
    return this.syncThen(micros.map((micro) => ({ kind: 'gradient' as const, micro, settings })));
  }

  /**
   * SFT's gradient shards (SftTrainer's `shards`), one job each, after the replicas get the policy's current
   * weights (the optimizer, or a caller restoring other weights, changed them since the last step). A failing
   * worker rejects the call (nothing is applied) with its number and cause.
   */
  shardGradients(batches: readonly WeightedTokenBatch[]): Promise<ShardReply[]> {
    return this.syncThen(batches.map((batch) => ({ kind: 'shard' as const, batch })));
  }

  /** Test hook: thread `index`'s next job fails as `mode` says (an exception, or the thread exiting). */
  injectFault(index: number, mode: FaultMode): void {
    this.replicas.injectFault(index, mode);
  }

  /** Terminates the workers; jobs in flight reject. Resolves once every thread has exited. */
  dispose(): Promise<void> {
    this.halt(new Error('policy workers were disposed'));
    return this.replicas.dispose();
  }

  /** Brings every replica to the policy's current weights (starting the threads on first use or after a failure). */
  private sync(): void {
    this.replicas.syncWeights();
    if (this.running) return;
    this.running = true;
    this.failure = null;
    this.generation++;
    this.idle = Array.from({ length: this.count }, (_, i) => i);
  }

  /** Syncs the weights, then runs the jobs of one kind; their results in the jobs' order. */
  private syncThen<Kind extends WorkerJob['kind']>(
    jobs: readonly (WorkerJob & { kind: Kind })[],
  ): Promise<WorkerJobResult[Kind][]> {
    try {
      this.sync();
    } catch (error) {
      return Promise.reject(error);
    }
    return Promise.all(jobs.map((job) => this.submit<Kind>(job)));
  }

  /** Queues a job for the next idle thread. */
  private submit<Kind extends WorkerJob['kind']>(
    job: WorkerJob & { kind: Kind },
  ): Promise<WorkerJobResult[Kind]> {
    return new Promise((resolve, reject) => {
      this.queue.push({ job, resolve: resolve as (result: Result) => void, reject });
      this.dispatch();
    });
  }

  private dispatch(): void {
    while (this.idle.length > 0 && this.queue.length > 0) {
      const thread = this.idle.shift()!;
      const call = this.queue.shift()!;
      const generation = this.generation;
      this.replicas.run(thread, call.job).then(
        (result) => {
          if (generation === this.generation) {
            this.idle.push(thread);
            this.dispatch();
          }
          call.resolve(result);
        },
        (error: Error) => {
          if (generation === this.generation) this.halt(error);
          call.reject(error);
        },
      );
    }
  }

  /** The threads stopped (a failure, or dispose): refuse jobs, reject the queued ones. */
  private halt(error: Error): void {
    this.running = false;
    this.failure = error;
    this.generation++;
    this.idle = [];
    for (const call of this.queue.splice(0)) call.reject(error);
  }
}

/**
 * The pool's name from before it also computed SFT's gradient shards, kept for callers of the trainer's API until
 * the next minor version.
 * @deprecated use PolicyWorkers
 */
export const RolloutWorkers = PolicyWorkers;
/** @deprecated use PolicyWorkers */
export type RolloutWorkers = PolicyWorkers;
