import { gradientArrays } from '../workers/gradient-arrays.js';
import { serveReplica } from '../workers/replica-host.js';
import type { ShardReply } from './gradient-protocol.js';
import { shardGradient } from '../model/shard-gradient.js';
import type { WeightedTokenBatch } from './token-batch.js';

// Worker-thread entry of SFT's data-parallel gradients (gradient-workers.ts): a policy replica on its own backend
// (replica-host.ts) that answers each shard with its loss and gradient.

serveReplica<null, WeightedTokenBatch, ShardReply>('gradient-worker-entry', async (replica) => {
  const variables = replica.trainableVariables();
  return async (batch) => {
    const { loss, gradients } = shardGradient(replica, variables, batch);
    const value = (await loss.data())[0]!;
    loss.dispose();
    const { result, transfer } = await gradientArrays(gradients);
    return { result: { loss: value, gradients: result }, transfer };
  };
});
