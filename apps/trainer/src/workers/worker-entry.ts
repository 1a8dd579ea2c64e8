import { microBatchGradient } from '@taorl/grpo';
import { shardGradient } from '@taorl/model';
import type { GeneratedSequence } from '@taorl/rollout';
import type * as tf from '@tensorflow/tfjs';
import { gradientArrays } from './gradient-arrays.js';
import { type JobOutput, serveReplica } from './replica-host.js';
import { loadTokenizer, type TokenizerSource } from './tokenizer-source.js';
import type { WorkerJob, WorkerJobResult } from './worker-job.js';

// Worker-thread entry of the policy workers (policy-workers.ts): a policy replica on its own backend
// (replica-host.ts) that answers generate calls, matching stop strings with the session's tokenizer, the RL
// update's micro-batch gradients and SFT's gradient shards.

type Result = WorkerJobResult[keyof WorkerJobResult];

/** Every array of the sequences was built for this result: hand its memory over instead of copying it. */
function sequenceBuffers(sequences: readonly GeneratedSequence[]): ArrayBuffer[] {
  return sequences.flatMap((sequence) => [
    sequence.tokens.buffer as ArrayBuffer,
    sequence.logProbs.buffer as ArrayBuffer,
    sequence.entropies.buffer as ArrayBuffer,
    ...(sequence.topLogprobs === undefined
      ? []
      : [
          sequence.topLogprobs.ids.buffer as ArrayBuffer,
          sequence.topLogprobs.logProbs.buffer as ArrayBuffer,
        ]),
  ]);
}

serveReplica<TokenizerSource, WorkerJob, Result>('worker-entry', async (replica, source) => {
  const tokenizer = await loadTokenizer(source);
  const decode = (ids: Int32Array) => tokenizer.decode(ids);
  const variables = replica.trainableVariables();
  const model = (tokens: tf.Tensor2D) => replica.logits(tokens);
  return async (job): Promise<JobOutput<Result>> => {
    if (job.kind === 'generate') {
      const result = await replica.generate(job.prompts, { ...job.sampling, decode });
      return { result, transfer: sequenceBuffers(result) };
    }
    if (job.kind === 'shard') {
      const { loss, gradients } = shardGradient(replica, variables, job.batch);
      const value = (await loss.data())[0]!;
      loss.dispose();
      const { result, transfer } = await gradientArrays(gradients);
      return { result: { loss: value, gradients: result }, transfer };
    }
    const { gradients, metrics } = await microBatchGradient(model, variables, job.micro, job.settings);
    const { result, transfer } = await gradientArrays(gradients);
    return { result: { gradients: result, metrics }, transfer };
  };
});
