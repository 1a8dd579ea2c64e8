import { ByteTokenizer } from '@taorl/data';
import type { RolloutPolicy } from '@taorl/rollout';
import { RemotePolicy } from '@taorl/rollout/node';
import { get } from './serve-fixture.js';

export const tokenizer = new ByteTokenizer();
const PROMPT = tokenizer.encode('<|im_start|>user\nQ: 3+4?<|im_end|>\n<|im_start|>assistant\n');

/** A small but complete RL config (real tiny model, sandbox, graders, updater) with a `remote` section. */
export function remoteConfigText(options: {
  outDir: string;
  modelDir: string;
  steps: number;
  remote: string[];
  /** rl.loss; an entropy bonus gives every step a gradient even when all of a group's rewards tie. */
  loss?: string;
}): string {
  return [
    'seed: 3',
    'backend: wasm',
    `outDir: ${JSON.stringify(options.outDir)}`,
    `model: {path: ${JSON.stringify(options.modelDir)}}`,
    'tool:',
    '  sandbox: {name: local, workers: 1, preload: []}',
    'rollout: {maxResponseTokens: 24, maxTurns: 1, temperature: 1.0}',
    'rl:',
    `  steps: ${options.steps}`,
    '  groups: 2',
    '  groupSize: 2',
    '  maxGenBatches: 1',
    '  learningRate: 1.0e-3',
    '  filters: []',
    '  overlong: {enabled: true, bufferFraction: 0.5}',
    '  microBatchRows: 4',
    ...(options.loss === undefined ? [] : [`  loss: ${options.loss}`]),
    '  checkpointEvery: 0',
    'remote:',
    ...options.remote.map((line) => `  ${line}`),
  ].join('\n');
}

/** A greedy continuation of a fixed prompt: its ids and their log-probs. */
export async function greedy(policy: RolloutPolicy): Promise<{ tokens: number[]; logProbs: number[] }> {
  const [out] = await policy.generate([PROMPT], {
    maxNewTokens: 8,
    temperature: 0,
    stopTokenIds: [tokenizer.eosTokenId],
  });
  return { tokens: Array.from(out!.tokens), logProbs: Array.from(out!.logProbs) };
}

/** The greedy continuation the server at `url` gives (one request, nothing else of the trainer involved). */
export async function servedGreedy(url: string): Promise<{ tokens: number[]; logProbs: number[] }> {
  const remote = new RemotePolicy({
    endpoints: [url],
    api: 'sglang',
    vocabSize: tokenizer.vocabSize,
    maxSequenceLength: 512,
    topLogprobs: 0,
  });
  try {
    return await greedy(remote);
  } finally {
    await remote.close();
  }
}

/** The server's weight version (0 = what it started with, +1 per reload). */
export async function weightVersion(url: string): Promise<number> {
  const info = await get<{ weight_version: number }>(url, '/get_model_info');
  return info.body.weight_version;
}
