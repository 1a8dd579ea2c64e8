import { serveReplica } from '../replicas/replica-host.js';
import type { ShardReply } from './gradient-protocol.js';
import { shardGradient } from './shard-gradient.js';
import type { WeightedTokenBatch } from './token-batch.js';

// Worker-thread entry of SFT's data-parallel gradients (gradient-workers.ts): a policy replica on its own backend
// (replica-host.ts) that answers each shard with its loss and gradient.

serveReplica<null, WeightedTokenBatch, ShardReply>('gradient-worker-entry', async (replica) => {
  const variables = replica.trainableVariables();
  return async (batch) => {
    const { loss, gradients } = shardGradient(replica, variables, batch);
    const result: ShardReply = {
      loss: (await loss.data())[0]!,
      gradients: await Promise.all(
        gradients.map(async (g) => (g === null ? null : ((await g.data()) as Float32Array))),
      ),
    };
    loss.dispose();
    for (const g of gradients) g?.dispose();
    // The arrays are copies read out of the disposed tensors: hand their memory over instead of copying it again.
    const transfer = result.gradients.flatMap((g) => (g === null ? [] : [g.buffer as ArrayBuffer]));
    return { result, transfer };
  };
});
