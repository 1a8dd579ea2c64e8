import type { FinishReason, GeneratedSequence } from '../policy.js';
import { entropyFromTopLogprobs } from './entropy-estimate.js';
import type { WireFields } from './wire-fields.js';

/** One sample's request, in the policy's terms, resolved to explicit values. */
export interface WireRequest {
  promptIds: Int32Array;
  maxNewTokens: number;
  /** 0 = greedy. */
  temperature: number;
  /** 1 = off. */
  topP: number;
  /** 0 = off. */
  topK: number;
  stopTokenIds: readonly number[];
  stopStrings: readonly string[];
  /** This sample's seed, when the call has one. */
  seed: number | undefined;
  /** Alternatives per position to ask for (k); 0 = only the sampled token. */
  topLogprobs: number;
}

/** One inference server API: where to POST, what to send, how to read the answer. */
export interface WireApi {
  /** Request path under the server's base URL. */
  readonly path: string;
  /** The JSON body; `model` is the served model name where the API needs one. */
  body(request: WireRequest, model: string | undefined): unknown;
  /**
   * Reads the answer, throwing `RemotePolicyError` (through `fields`) on anything training cannot use and
   * `TransientServerError` when the server aborted the request.
   */
  parse(json: unknown, fields: WireFields, request: WireRequest, vocabSize: number): WireGeneration;
}

/** How a server-side generation ended, in the policy's terms. */
export type WireFinish =
  | { reason: Exclude<FinishReason, 'stop_string'> }
  | { reason: 'stop_string'; stopString: string };

/** One generation as parsed from either API, before entropies are estimated. */
export interface WireGeneration {
  /** Generated ids, including the stop id or the tokens that completed a stop string. */
  tokenIds: number[];
  /** log p of each generated id. */
  logProbs: number[];
  /** Per generated position, the server's top alternatives as [id, logProb]; null when none were requested. */
  alternatives: [number, number][][] | null;
  finish: WireFinish;
}

/**
 * The `GeneratedSequence` of a parsed generation. Entropies come from `entropyFromTopLogprobs`: the alternatives
 * plus the sampled id (when outside them) are the known part; without alternatives, the sampled token's surprisal.
 */
export function toGeneratedSequence(generation: WireGeneration, vocabSize: number): GeneratedSequence {
  const count = generation.tokenIds.length;
  const entropies = new Float32Array(count);
  for (let i = 0; i < count; i++) {
    const sampledLogProb = generation.logProbs[i]!;
    const alternatives = generation.alternatives?.[i];
    if (alternatives === undefined) {
      entropies[i] = entropyFromTopLogprobs([], vocabSize, sampledLogProb);
      continue;
    }
    const known = new Map(alternatives);
    if (!known.has(generation.tokenIds[i]!)) known.set(generation.tokenIds[i]!, sampledLogProb);
    entropies[i] = entropyFromTopLogprobs([...known.values()], vocabSize, sampledLogProb);
  }
  return {
    tokens: Int32Array.from(generation.tokenIds),
    logProbs: Float32Array.from(generation.logProbs),
    entropies,
    finishReason: generation.finish.reason,
    ...(generation.finish.reason === 'stop_string' ? { stopString: generation.finish.stopString } : {}),
  };
}
