/** A gradient worker's answer to one shard (the job of a `ReplicaWorkers` pool, see gradient-workers.ts). */
export interface ShardReply {
  /** The shard's weighted loss (see `shardGradient`). */
  loss: number;
  /** Gradient per variable in variable order; null where the loss does not reach the variable. */
  gradients: (Float32Array | null)[];
}
