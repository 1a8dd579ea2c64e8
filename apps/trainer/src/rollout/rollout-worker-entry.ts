import type { GeneratedSequence } from '../model/policy.js';
import { serveReplica } from '../replicas/replica-host.js';
import type { GenerateJob } from './generation-job.js';
import { loadTokenizer, type TokenizerSource } from './tokenizer-source.js';

// Worker-thread entry of rollout generation (generation-workers.ts): a policy replica on its own backend
// (replica-host.ts) that answers each generate call, matching stop strings with the session's tokenizer.

serveReplica<TokenizerSource, GenerateJob, GeneratedSequence[]>(
  'generation-worker-entry',
  async (replica, source) => {
    const tokenizer = await loadTokenizer(source);
    const decode = (ids: Int32Array) => tokenizer.decode(ids);
    return async ({ prompts, sampling }) => {
      const result = await replica.generate(prompts, { ...sampling, decode });
      // Every array was built for this result: hand its memory over instead of copying it.
      const transfer = result.flatMap((sequence) => [
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
      return { result, transfer };
    };
  },
);
