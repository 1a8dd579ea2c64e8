import { TransientServerError } from './remote-error.js';
import type { WireApi, WireFinish, WireGeneration, WireRequest } from './wire-api.js';
import type { WireFields } from './wire-fields.js';

/** POST /v1/completions body, as vLLM (>= 0.10.2) reads it with a token-id prompt. */
export interface OpenAiCompletionRequest {
  model: string;
  /** One prompt, as token ids. */
  prompt: number[];
  max_tokens: number;
  temperature: number;
  top_p: number;
  /** vLLM extension; -1 = off. */
  top_k: number;
  min_p: number;
  repetition_penalty: number;
  seed?: number;
  stop: string[];
  stop_token_ids: number[];
  include_stop_str_in_output: true;
  skip_special_tokens: false;
  /** Top alternatives per position; 0 = only the sampled token's log-prob. */
  logprobs: number;
  return_token_ids: true;
  return_tokens_as_token_ids: true;
}

const TOKEN_IDS_HINT = 'start vLLM >= 0.10.2 and send return_token_ids';
const LOGPROBS_HINT = 'send logprobs (the server must allow it: --max-logprobs)';
const TOKEN_ID_KEYS_HINT = 'send return_tokens_as_token_ids';
const TOKEN_ID_KEY = /^token_id:(\d+)$/;

/**
 * OpenAI-compatible completions as vLLM serves them. Every sampling knob is sent explicitly (top_k -1 = off,
 * min_p 0, repetition_penalty 1): otherwise vLLM fills them from the model's generation_config.json (Qwen ships
 * top_k 20, top_p 0.8), silently sampling from another distribution than the one the trainer assumes.
 */
export const openAiCompletions: WireApi = {
  path: '/v1/completions',

  body(request: WireRequest, model: string | undefined): OpenAiCompletionRequest {
    if (model === undefined) throw new TypeError('openAiCompletions: the model name is required');
    return {
      model,
      prompt: Array.from(request.promptIds),
      max_tokens: request.maxNewTokens,
      temperature: request.temperature,
      top_p: request.topP,
      top_k: request.topK > 0 ? request.topK : -1,
      min_p: 0,
      repetition_penalty: 1,
      ...(request.seed === undefined ? {} : { seed: request.seed }),
      stop: [...request.stopStrings],
      stop_token_ids: [...request.stopTokenIds],
      include_stop_str_in_output: true,
      skip_special_tokens: false,
      logprobs: request.topLogprobs,
      return_token_ids: true,
      return_tokens_as_token_ids: true,
    };
  },

  /**
   * Reads choices[0]: token_ids (generated ids), logprobs {tokens ("token_id:N"), token_logprobs, top_logprobs
   * ({"token_id:N": logprob} per position: the top-k and the sampled id)}, finish_reason (stop | length | abort),
   * stop_reason (the matched stop string, the matched stop id, or null for EOS).
   */
  parse(json: unknown, fields: WireFields, request: WireRequest, vocabSize: number): WireGeneration {
    const choices = fields.array(fields.object(json, 'the body').choices, 'choices');
    const choice = fields.object(choices[0], 'choices[0]');
    const finish = readFinish(choice, fields);
    const tokenIds = fields
      .array(choice.token_ids, 'choices[0].token_ids', TOKEN_IDS_HINT)
      .map((id, i) => fields.tokenId(id, `choices[0].token_ids[${i}]`, vocabSize));
    if (tokenIds.length > request.maxNewTokens) {
      fields.fail(
        'choices[0].token_ids',
        `has ${tokenIds.length} ids, more than max_tokens ${request.maxNewTokens}`,
      );
    }
    const logprobs = fields.object(choice.logprobs, 'choices[0].logprobs', LOGPROBS_HINT);
    const count = tokenIds.length;
    const logProbs = fields
      .arrayOfLength(logprobs.token_logprobs, 'choices[0].logprobs.token_logprobs', count, 'token_ids')
      .map((value, i) => fields.logProb(value, `choices[0].logprobs.token_logprobs[${i}]`));
    if (logprobs.tokens !== undefined) {
      fields
        .arrayOfLength(logprobs.tokens, 'choices[0].logprobs.tokens', count, 'token_ids')
        .forEach((token, i) => {
          if (token !== `token_id:${tokenIds[i]}`) {
            fields.fail(
              `choices[0].logprobs.tokens[${i}]`,
              `is ${JSON.stringify(token)}, not "token_id:${tokenIds[i]}" as token_ids says`,
              TOKEN_ID_KEYS_HINT,
            );
          }
        });
    }
    const alternatives =
      request.topLogprobs > 0
        ? fields
            .arrayOfLength(
              logprobs.top_logprobs,
              'choices[0].logprobs.top_logprobs',
              count,
              'token_ids',
              LOGPROBS_HINT,
            )
            .map((entry, i) =>
              readAlternatives(entry, `choices[0].logprobs.top_logprobs[${i}]`, fields, vocabSize),
            )
        : null;
    return { tokenIds, logProbs, alternatives, finish };
  },
};

function readFinish(choice: Record<string, unknown>, fields: WireFields): WireFinish {
  const reason = fields.string(choice.finish_reason, 'choices[0].finish_reason');
  if (reason === 'length') return { reason: 'length' };
  if (reason === 'abort') throw new TransientServerError(`${fields.url}: the server aborted the request`);
  if (reason !== 'stop')
    fields.fail('choices[0].finish_reason', `is ${JSON.stringify(reason)}, not stop or length`);
  const stopReason = choice.stop_reason;
  if (typeof stopReason === 'string') return { reason: 'stop_string', stopString: stopReason };
  if (stopReason === null || stopReason === undefined || typeof stopReason === 'number') {
    return { reason: 'stop_token' };
  }
  return fields.fail(
    'choices[0].stop_reason',
    `must be a string, a token id or null, got ${typeof stopReason}`,
  );
}

function readAlternatives(
  entry: unknown,
  path: string,
  fields: WireFields,
  vocabSize: number,
): [number, number][] {
  return Object.entries(fields.object(entry, path, LOGPROBS_HINT)).map(([key, value]) => {
    const id = TOKEN_ID_KEY.exec(key)?.[1];
    if (id === undefined)
      fields.fail(`${path} key ${JSON.stringify(key)}`, 'is not "token_id:N"', TOKEN_ID_KEYS_HINT);
    return [
      fields.tokenId(Number(id), `${path}["${key}"]`, vocabSize),
      fields.logProb(value, `${path}["${key}"]`),
    ];
  });
}

/** The served model's name from a GET /v1/models answer, {data: [{id}, ...]}: the first one's id. */
export function servedModelName(json: unknown, fields: WireFields): string {
  const models = fields.array(fields.object(json, 'the body').data, 'data');
  if (models.length === 0) fields.fail('data', 'is empty: the server serves no model');
  return fields.string(fields.object(models[0], 'data[0]').id, 'data[0].id');
}
