import { TransientServerError } from './remote-error.js';
import type { WireApi, WireFinish, WireGeneration, WireRequest } from './wire-api.js';
import type { WireFields } from './wire-fields.js';

/** POST /generate body of SGLang's native API, for one token-id prompt. */
export interface SglangGenerateRequest {
  input_ids: number[];
  sampling_params: {
    max_new_tokens: number;
    temperature: number;
    top_p: number;
    /** -1 = off. */
    top_k: number;
    min_p: number;
    repetition_penalty: number;
    stop: string[];
    stop_token_ids: number[];
    /** Keep the stop string (and its tokens) in the output. */
    no_stop_trim: true;
    skip_special_tokens: false;
    sampling_seed?: number;
  };
  return_logprob: true;
  /** Top alternatives per position; 0 = only the sampled token's log-prob. */
  top_logprobs_num: number;
  /** -1 = log-probs of the generated tokens only. */
  logprob_start_len: -1;
  stream: false;
}

const LOGPROBS_HINT = 'send return_logprob with logprob_start_len -1';

/**
 * SGLang's native /generate. Sampling knobs are sent explicitly (top_k -1 = off, min_p 0, repetition_penalty 1)
 * so server-side defaults from the model's generation_config cannot change the sampled distribution.
 */
export const sglangGenerate: WireApi = {
  path: '/generate',

  body(request: WireRequest): SglangGenerateRequest {
    return {
      input_ids: Array.from(request.promptIds),
      sampling_params: {
        max_new_tokens: request.maxNewTokens,
        temperature: request.temperature,
        top_p: request.topP,
        top_k: request.topK > 0 ? request.topK : -1,
        min_p: 0,
        repetition_penalty: 1,
        stop: [...request.stopStrings],
        stop_token_ids: [...request.stopTokenIds],
        no_stop_trim: true,
        skip_special_tokens: false,
        ...(request.seed === undefined ? {} : { sampling_seed: request.seed }),
      },
      return_logprob: true,
      top_logprobs_num: request.topLogprobs,
      logprob_start_len: -1,
      stream: false,
    };
  },

  /**
   * Reads output_ids (generated ids) and meta_info: finish_reason ({type: stop, matched: stop id (EOS included) or
   * stop string} | {type: length} | {type: abort}), output_token_logprobs ([logprob, id, text | null] per
   * position), output_top_logprobs (a list of such entries per position).
   */
  parse(json: unknown, fields: WireFields, request: WireRequest, vocabSize: number): WireGeneration {
    const body = fields.object(json, 'the body');
    const meta = fields.object(body.meta_info, 'meta_info');
    const finish = readFinish(meta, fields);
    const tokenIds = fields
      .array(body.output_ids, 'output_ids', 'use SGLang /generate with input_ids')
      .map((id, i) => fields.tokenId(id, `output_ids[${i}]`, vocabSize));
    if (tokenIds.length > request.maxNewTokens) {
      fields.fail(
        'output_ids',
        `has ${tokenIds.length} ids, more than max_new_tokens ${request.maxNewTokens}`,
      );
    }
    const count = tokenIds.length;
    const logProbs = fields
      .arrayOfLength(
        meta.output_token_logprobs,
        'meta_info.output_token_logprobs',
        count,
        'output_ids',
        LOGPROBS_HINT,
      )
      .map((entry, i) => {
        const path = `meta_info.output_token_logprobs[${i}]`;
        const [logProb, id] = readEntry(entry, path, fields, vocabSize);
        if (id !== tokenIds[i]) fields.fail(`${path}[1]`, `is ${id} but output_ids[${i}] is ${tokenIds[i]}`);
        return logProb;
      });
    const alternatives =
      request.topLogprobs > 0
        ? fields
            .arrayOfLength(
              meta.output_top_logprobs,
              'meta_info.output_top_logprobs',
              count,
              'output_ids',
              LOGPROBS_HINT,
            )
            .map((position, i) =>
              fields
                .array(position, `meta_info.output_top_logprobs[${i}]`)
                .map((entry, j) =>
                  readEntry(entry, `meta_info.output_top_logprobs[${i}][${j}]`, fields, vocabSize),
                )
                .map(([logProb, id]): [number, number] => [id, logProb]),
            )
        : null;
    return { tokenIds, logProbs, alternatives, finish };
  },
};

function readFinish(meta: Record<string, unknown>, fields: WireFields): WireFinish {
  const finish = fields.object(meta.finish_reason, 'meta_info.finish_reason');
  const type = fields.string(finish.type, 'meta_info.finish_reason.type');
  if (type === 'length') return { reason: 'length' };
  if (type === 'abort') {
    throw new TransientServerError(
      `${fields.url}: the server aborted the request: ${String(finish.message ?? '')}`,
    );
  }
  if (type !== 'stop')
    fields.fail('meta_info.finish_reason.type', `is ${JSON.stringify(type)}, not stop or length`);
  const matched = finish.matched;
  if (typeof matched === 'string') return { reason: 'stop_string', stopString: matched };
  if (typeof matched === 'number' || Array.isArray(matched)) return { reason: 'stop_token' };
  return fields.fail('meta_info.finish_reason.matched', 'must be a stop string or a token id');
}

/** [logprob, id] of a [logprob, id, text] entry. */
function readEntry(entry: unknown, path: string, fields: WireFields, vocabSize: number): [number, number] {
  const [logProb, id] = fields.array(entry, path);
  return [fields.logProb(logProb, `${path}[0]`), fields.tokenId(id, `${path}[1]`, vocabSize)];
}
