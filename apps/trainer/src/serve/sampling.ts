import type { BatchSettings } from './batcher.js';
import { ServeRequestError } from './errors.js';
import { checkTokenIds, type RequestFields } from './fields.js';

/** What request validation needs to know about the served model. */
export interface ModelLimits {
  vocabSize: number;
  /** Longest prompt + generation (the model's max_position_embeddings). */
  maxModelLen: number;
  /** Added to every request's stop ids unless it sets ignore_eos, as vLLM and SGLang do. */
  eosTokenId?: number;
}

/** Most top log-probs per step a request may ask for (vLLM's default --max-logprobs). */
export const MAX_TOP_LOGPROBS = 20;

/**
 * The prompt as token ids: a list of ids, or a list holding one such list. Text is refused: this server does not
 * tokenize, so a client must send the ids its trainer records.
 */
export function readPrompt(fields: RequestFields, key: string, limits: ModelLimits): Int32Array {
  const param = fields.param(key);
  if (!fields.has(key)) fields.fail(key, 'required: the prompt as a list of token ids');
  let value = fields.raw(key);
  const isText = typeof value === 'string' || (Array.isArray(value) && typeof value[0] === 'string');
  if (isText) {
    fields.fail(key, 'token ids are required: this server does not tokenize text; send a list of token ids');
  }
  if (Array.isArray(value) && Array.isArray(value[0])) {
    if (value.length !== 1) {
      fields.fail(
        key,
        `holds ${value.length} prompts; send one prompt per request (batching is the server's job)`,
      );
    }
    value = value[0];
  }
  const ids = checkTokenIds(value, param, limits.vocabSize);
  if (ids.length === 0) fields.fail(key, 'is empty; generation needs at least one prompt token');
  if (ids.length >= limits.maxModelLen) {
    throw new ServeRequestError(
      `${param}: ${ids.length} tokens, but the model's maximum context length is ${limits.maxModelLen} ` +
        `tokens and at least one must be left to generate`,
      param,
    );
  }
  return Int32Array.from(ids);
}

/**
 * Knobs of either engine this server does not implement, with the values that leave the answer unchanged; any other
 * value is refused rather than ignored, so a client never samples from a distribution it did not ask for nor waits
 * for an output that will not come (the one rule for unsupported fields: refused with a 400 naming the field, or
 * honoured, never ignored). vLLM names them at the top level of /v1/completions, SGLang inside sampling_params;
 * both places are checked.
 */
const NEUTRAL_KNOBS: Record<string, { neutral: string; isNeutral(value: unknown): boolean; hint?: string }> =
  {
    min_p: { neutral: '0', isNeutral: (v) => v === 0 },
    repetition_penalty: { neutral: '1', isNeutral: (v) => v === 1 },
    presence_penalty: { neutral: '0', isNeutral: (v) => v === 0 },
    frequency_penalty: { neutral: '0', isNeutral: (v) => v === 0 },
    n: { neutral: '1', isNeutral: (v) => v === 1, hint: 'send n requests' },
    best_of: { neutral: '1', isNeutral: (v) => v === 1 },
    min_tokens: { neutral: '0', isNeutral: (v) => v === 0 },
    min_new_tokens: { neutral: '0', isNeutral: (v) => v === 0 },
    logit_bias: { neutral: '{}', isNeutral: (v) => isEmptyObject(v) },
    allowed_token_ids: { neutral: 'null', isNeutral: () => false, hint: 'every id is allowed' },
    bad_words: { neutral: '[]', isNeutral: (v) => Array.isArray(v) && v.length === 0 },
    regex: { neutral: 'null', isNeutral: () => false },
    json_schema: { neutral: 'null', isNeutral: () => false },
    ebnf: { neutral: 'null', isNeutral: () => false },
    structural_tag: { neutral: 'null', isNeutral: () => false },
    guided_json: { neutral: 'null', isNeutral: () => false },
    guided_regex: { neutral: 'null', isNeutral: () => false },
    guided_choice: { neutral: 'null', isNeutral: () => false },
    guided_grammar: { neutral: 'null', isNeutral: () => false },
    use_beam_search: { neutral: 'false', isNeutral: (v) => v === false },
    truncate_prompt_tokens: { neutral: 'null', isNeutral: () => false, hint: 'the prompt is never cut' },
    // /generate's logprob_start_len, the SGLang form of the same request, is refused alike (generate.ts).
    prompt_logprobs: {
      neutral: 'null',
      isNeutral: () => false,
      hint: 'prompt log-probs are not computed; the output tokens have theirs with logprobs',
    },
  };

const isEmptyObject = (value: unknown) =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0;

/**
 * The smallest temperature above 0. Log-probs are those of logits / temperature, sent as float32: at 1e-310,
 * 1 / temperature overflows and every log-prob was NaN (JSON null); at 1e-200 the alternatives' log-probs are below
 * -3.4e38, -Infinity in float32 (null again). From 1e-30 on, logit gaps up to 3.4e8 (far beyond any model's) give
 * finite log-probs. A smaller temperature is refused with a 400 naming the field; 0 asks for greedy decoding.
 */
const MIN_TEMPERATURE = 1e-30;

/** The sampling settings both APIs name alike; `fields` is the body (vLLM) or sampling_params (SGLang). */
export function readBatchSettings(fields: RequestFields, limits: ModelLimits): BatchSettings {
  for (const [key, knob] of Object.entries(NEUTRAL_KNOBS)) {
    const value = fields.raw(key);
    if (fields.has(key) && !knob.isNeutral(value)) {
      const hint = knob.hint === undefined ? '' : ` (${knob.hint})`;
      const shown = typeof value === 'number' || typeof value === 'boolean' ? `${value} ` : '';
      fields.fail(key, `${shown}is not supported; only ${knob.neutral} is${hint}`);
    }
  }
  const topK = fields.integer('top_k', 0, -1);
  const stopTokenIds = fields.tokenIds('stop_token_ids', limits.vocabSize);
  const withEos =
    limits.eosTokenId !== undefined && !fields.boolean('ignore_eos', false)
      ? [...new Set([...stopTokenIds, limits.eosTokenId])]
      : stopTokenIds;
  return {
    temperature: fields.number(
      'temperature',
      1,
      (t) => t === 0 || (t >= MIN_TEMPERATURE && Number.isFinite(t)),
      `0 (greedy) or a number >= ${MIN_TEMPERATURE} (below it, log-probs overflow)`,
    ),
    topP: fields.number('top_p', 1, (p) => p > 0 && p <= 1, 'a number in (0, 1]'),
    // -1 and 0 both mean "off" in vLLM and SGLang.
    topK: topK === -1 ? 0 : topK,
    stopStrings: fields.strings('stop'),
    stopTokenIds: withEos,
    skipSpecialTokens: fields.boolean('skip_special_tokens', true),
  };
}
