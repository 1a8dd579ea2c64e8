import { type MessagePort, parentPort } from 'node:worker_threads';
import { initBackend } from '@taorl/grpo';
import * as tf from '@tensorflow/tfjs';
import { TransformerPolicy } from '../model/transformer-policy.js';
import type { GradientWorkerReply, GradientWorkerRequest, ShardReply } from './gradient-protocol.js';
import { shardGradient } from './shard-gradient.js';

// Worker-thread entry of SFT's data-parallel gradients (gradient-workers.ts): it starts its own tfjs backend
// (wasm runs on one thread, so each worker adds a core), holds a replica of the policy that the main thread keeps
// identical by sending the weights before every step's shard, and answers each shard with its gradient. Messages
// are handled strictly in order, so a shard always sees the weights sent before it.

if (parentPort === null) {
  throw new Error('gradient-worker-entry: run it as a worker thread (see gradient-workers.ts)');
}
const port: MessagePort = parentPort;

let replica: TransformerPolicy | null = null;
let variables: tf.Variable[] = [];

async function handle(request: GradientWorkerRequest): Promise<void> {
  if (request.kind === 'start') {
    await initBackend({ prefer: request.backend });
    replica = new TransformerPolicy({ config: request.config, tensors: request.tensors });
    variables = replica.trainableVariables();
    return;
  }
  if (replica === null) throw new Error(`received "${request.kind}" before "start"`);
  if (request.kind === 'weights') {
    if (request.values.length !== variables.length) {
      throw new Error(`received ${request.values.length} weight arrays for ${variables.length} variables`);
    }
    tf.tidy(() => {
      variables.forEach((variable, i) => {
        variable.assign(tf.tensor(request.values[i]!, variable.shape));
      });
    });
    return;
  }
  const { loss, gradients } = shardGradient(replica, variables, request.batch);
  const reply: ShardReply = {
    kind: 'shard',
    loss: (await loss.data())[0]!,
    gradients: await Promise.all(
      gradients.map(async (g) => (g === null ? null : ((await g.data()) as Float32Array))),
    ),
  };
  tf.dispose([loss, ...gradients.filter((g): g is tf.Tensor => g !== null)]);
  // The arrays are copies read out of the disposed tensors: hand their memory over instead of copying it again.
  const buffers = new Set(reply.gradients.flatMap((g) => (g === null ? [] : [g.buffer as ArrayBuffer])));
  port.postMessage(reply, [...buffers]);
}

// After a failure the replica may be out of step with the main thread: report it and handle nothing more (the
// main thread terminates every worker and starts fresh ones from its current weights).
let queue: Promise<void> = Promise.resolve();
let failed = false;
port.on('message', (request: GradientWorkerRequest) => {
  queue = queue.then(async () => {
    if (failed) return;
    try {
      await handle(request);
    } catch (error) {
      failed = true;
      const message = error instanceof Error ? error.message : String(error);
      const reply: GradientWorkerReply = { kind: 'failed', message };
      port.postMessage(reply);
    }
  });
});
