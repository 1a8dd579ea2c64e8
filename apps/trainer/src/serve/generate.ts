import { randomUUID } from 'node:crypto';
import type { GeneratedSequence } from '@taorl/rollout';
import type { ServeContext } from './context.js';
import { RequestFields } from './fields.js';
import { MAX_TOP_LOGPROBS, readBatchSettings, readPrompt } from './sampling.js';
import { outputText } from './text.js';

/** SGLang's log-prob entry: [log-prob, token id, token text (null: not asked for)]. */
export type TokenLogprob = [number, number, null];

export type GenerateFinishReason =
  | { type: 'stop'; matched: number | string }
  | { type: 'length'; length: number };

export interface GenerateResponse {
  text: string;
  output_ids: number[];
  meta_info: {
    id: string;
    finish_reason: GenerateFinishReason;
    prompt_tokens: number;
    completion_tokens: number;
    cached_tokens: number;
    /** 0 at start, +1 per successful update_weights_from_disk (SGLang sends a string here; taorl a counter). */
    weight_version: number;
    /** With return_logprob: one entry per output token. */
    output_token_logprobs?: TokenLogprob[];
    /** With return_logprob: the top_logprobs_num most likely ids at each output position. */
    output_top_logprobs?: TokenLogprob[][];
  };
}

/**
 * POST /generate as SGLang's native API: input_ids, sampling_params, return_logprob, top_logprobs_num. One prompt
 * per request. Log-probs follow the same convention as /v1/completions (softmax(logits / temperature) before
 * top-k / top-p).
 */
export async function generateRoute(body: unknown, context: ServeContext): Promise<GenerateResponse> {
  const { limits } = context;
  const fields = RequestFields.of(body, null);
  if (fields.has('text')) {
    fields.fail('text', 'token ids are required: this server does not tokenize text; send input_ids');
  }
  if (fields.boolean('stream', false)) fields.fail('stream', 'streaming is not supported');
  if (fields.integer('logprob_start_len', -1, -1) !== -1) {
    fields.fail(
      'logprob_start_len',
      'prompt log-probs are not supported; leave it at -1 (output tokens only)',
    );
  }
  const prompt = readPrompt(fields, 'input_ids', limits);
  const sampling = fields.nested('sampling_params');
  const settings = readBatchSettings(sampling, limits);
  const maxTokens = sampling.integer('max_new_tokens', 128, 0);
  const noStopTrim = sampling.boolean('no_stop_trim', false);
  const seed = sampling.optionalInteger('sampling_seed');
  const returnLogprob = fields.boolean('return_logprob', false);
  const topNum = fields.integer('top_logprobs_num', 0, 0, MAX_TOP_LOGPROBS);

  const { sequence, weightVersion } = await context.batcher.submit({
    prompt,
    maxTokens,
    settings,
    topLogprobs: returnLogprob ? topNum : 0,
    ...(seed === undefined ? {} : { seed }),
  });
  const response: GenerateResponse = {
    text: outputText(context.decode, sequence, {
      skipSpecialTokens: settings.skipSpecialTokens,
      keepStopString: noStopTrim,
      keepStopToken: noStopTrim,
    }),
    output_ids: Array.from(sequence.tokens),
    meta_info: {
      id: randomUUID().replaceAll('-', ''),
      finish_reason: finishReason(sequence),
      prompt_tokens: prompt.length,
      completion_tokens: sequence.tokens.length,
      cached_tokens: 0,
      weight_version: weightVersion,
    },
  };
  if (returnLogprob) {
    const { tokens, logProbs, topLogprobs } = sequence;
    response.meta_info.output_token_logprobs = Array.from(tokens, (id, i) => [logProbs[i]!, id, null]);
    const perStep =
      topLogprobs === undefined || tokens.length === 0 ? 0 : topLogprobs.ids.length / tokens.length;
    response.meta_info.output_top_logprobs = Array.from(tokens, (_, step) =>
      Array.from({ length: perStep }, (_, j): TokenLogprob => {
        const at = step * perStep + j;
        return [topLogprobs!.logProbs[at]!, topLogprobs!.ids[at]!, null];
      }),
    );
  }
  return response;
}

function finishReason(sequence: GeneratedSequence): GenerateFinishReason {
  if (sequence.finishReason === 'stop_string') return { type: 'stop', matched: sequence.stopString! };
  if (sequence.finishReason === 'stop_token') {
    return { type: 'stop', matched: sequence.tokens[sequence.tokens.length - 1]! };
  }
  return { type: 'length', length: sequence.tokens.length };
}
