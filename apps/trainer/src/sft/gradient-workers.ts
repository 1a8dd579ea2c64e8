import type { TransformerPolicy } from '../model/transformer-policy.js';
import { ReplicaWorkers } from '../workers/replica-workers.js';
import type { ShardReply } from './gradient-protocol.js';
import type { WeightedTokenBatch } from './token-batch.js';

/**
 * Worker threads that compute SFT gradient shards on replicas of a policy (gradient-worker-entry.ts), a
 * `ReplicaWorkers` pool: every call first brings the replicas to the policy's current weights, so they compute on
 * exactly the main policy's weights whatever changed them (the optimizer, or a caller restoring other weights
 * between steps). A worker that fails or exits rejects the call with its number and reason; the next call starts
 * fresh workers.
 */
export class GradientWorkers {
  private readonly replicas: ReplicaWorkers<null, WeightedTokenBatch, ShardReply>;

  constructor(
    policy: TransformerPolicy,
    /** Worker threads, each computing one shard per call. */
    readonly count: number,
  ) {
    this.replicas = new ReplicaWorkers(policy, count, {
      label: 'SFT gradient worker',
      entry: {
        source: new URL('./gradient-worker-entry.ts', import.meta.url),
        built: 'sft-gradient-worker.js',
      },
      setup: null,
    });
  }

  /** The gradient of batches[i] on worker i + 1, all at once; at most `count` batches. */
  shards(batches: readonly WeightedTokenBatch[]): Promise<ShardReply[]> {
    if (batches.length > this.count) {
      return Promise.reject(
        new RangeError(`GradientWorkers: ${batches.length} shards for ${this.count} worker threads`),
      );
    }
    try {
      this.replicas.syncWeights();
    } catch (error) {
      return Promise.reject(error);
    }
    return Promise.all(batches.map((batch, i) => this.replicas.run(i, batch)));
  }

  /** Terminates the workers; a pending `shards` call rejects. Resolves once every thread has exited. */
  dispose(): Promise<void> {
    return this.replicas.dispose();
  }
}
