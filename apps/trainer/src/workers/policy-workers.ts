import type { GradientSettings, MicroBatch, MicroBatchGradient } from '@taorl/grpo';
import type { GeneratedSequence, RolloutPolicy, SamplingParams } from '../model/policy.js';
import type { TransformerPolicy } from '../model/transformer-policy.js';
import type { FaultMode } from './replica-protocol.js';
import { ReplicaWorkers } from './replica-workers.js';
import type { RolloutJob, RolloutJobResult } from './worker-job.js';
import type { TokenizerSource } from './tokenizer-source.js';

type Result = RolloutJobResult[keyof RolloutJobResult];

interface QueuedCall {
  job: RolloutJob;
  resolve: (result: Result) => void;
  reject: (error: Error) => void;
}

/**
 * Rollout workers (rollout.workers > 1): replicas of the trained policy on worker threads, each on its own tfjs
 * backend (rollout-worker-entry.ts), that run the rollouts' `generate` calls (a `RolloutPolicy`) and the RL update's
 * micro-batch gradients (`microBatchGradients`, for GrpoUpdater). The rollout engine's lanes call `generate`
 * concurrently; each call, like each micro-batch, goes to the next idle thread, in the order of the calls.
 *
 * Which thread runs a call changes nothing in its result: `generate` depends only on the prefixes, the sampling
 * parameters (the seed derives from step, lane and turn) and the weights, and every replica holds exactly the
 * policy's weights, sent by `beforeRollout` (the engine calls it before a batch's first call), on the same backend
 * as the main thread. So trajectories are the same with any number of workers, and the same as the policy's own
 * `generate` on the main thread (rollout.workers 1).
 *
 * A worker that fails or exits rejects the call it ran, every call in flight or queued, with its number and cause;
 * calls are then refused until the next `beforeRollout` or `microBatchGradients` starts fresh workers from the
 * current weights.
 */
export class RolloutWorkers implements RolloutPolicy {
  readonly concurrentGenerate = true;
  readonly vocabSize: number;
  readonly maxSequenceLength: number;
  private readonly replicas: ReplicaWorkers<TokenizerSource, RolloutJob, Result>;
  /** Threads without a call, by index; empty while stopped. */
  private idle: number[] = [];
  private readonly queue: QueuedCall[] = [];
  private running = false;
  /** Why calls are refused (a worker failed), until the next `beforeRollout`. */
  private failure: Error | null = null;
  /** Bumped when the threads are replaced, so a call of the stopped set does not hand its thread back. */
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
      label: 'rollout worker',
      entry: { source: new URL('./worker-entry.ts', import.meta.url), built: 'rollout-worker.js' },
      setup: tokenizer,
    });
  }

  /** Before a rollout batch: the replicas get the policy's current weights. */
  beforeRollout(): void {
    this.sync();
  }

  generate(prompts: readonly Int32Array[], sampling: SamplingParams): Promise<GeneratedSequence[]> {
    if (!this.running) {
      return Promise.reject(this.failure ?? new Error('rollout workers: call beforeRollout before generate'));
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
    try {
      this.sync();
    } catch (error) {
      return Promise.reject(error);
    }
    return Promise.all(micros.map((micro) => this.submit<'gradient'>({ kind: 'gradient', micro, settings })));
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

  /** Queues a job for the next idle thread. */
  private submit<Kind extends RolloutJob['kind']>(
    job: RolloutJob & { kind: Kind },
  ): Promise<RolloutJobResult[Kind]> {
    return new Promise((resolve, reject) => {
      this.queue.push({ job, resolve: resolve as (result: Result) => void, reject });
      this.dispatch();
    });
  }

  /** Test hook: thread `index`'s next call fails as `mode` says (an exception, or the thread exiting). */
  injectFault(index: number, mode: FaultMode): void {
    this.replicas.injectFault(index, mode);
  }

  /** Terminates the workers; calls in flight reject. Resolves once every thread has exited. */
  dispose(): Promise<void> {
    this.halt(new Error('rollout workers were disposed'));
    return this.replicas.dispose();
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

  /** The threads stopped (a failure, or dispose): refuse calls, reject the queued ones. */
  private halt(error: Error): void {
    this.running = false;
    this.failure = error;
    this.generation++;
    this.idle = [];
    for (const call of this.queue.splice(0)) call.reject(error);
  }
}
