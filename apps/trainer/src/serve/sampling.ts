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
 * Knobs of both engines this server does not implement, at the value that leaves the distribution unchanged; any
 * other value is refused rather than ignored, so a client never samples from a distribution it did not ask for.
 */
const NEUTRAL_KNOBS: Record<string, number> = {
  min_p: 0,
  repetition_penalty: 1,
  presence_penalty: 0,
  frequency_penalty: 0,
};

/** The sampling settings both APIs name alike; `fields` is the body (vLLM) or sampling_params (SGLang). */
export function readBatchSettings(fields: RequestFields, limits: ModelLimits): BatchSettings {
  for (const [key, neutral] of Object.entries(NEUTRAL_KNOBS)) {
    if (fields.has(key) && fields.raw(key) !== neutral)
      fields.fail(key, `is not supported; only ${neutral} is`);
  }
  const topK = fields.integer('top_k', 0, -1);
  const stopTokenIds = fields.tokenIds('stop_token_ids', limits.vocabSize);
  const withEos =
    limits.eosTokenId !== undefined && !fields.boolean('ignore_eos', false)
      ? [...new Set([...stopTokenIds, limits.eosTokenId])]
      : stopTokenIds;
  return {
    temperature: fields.number('temperature', 1, (t) => t >= 0 && Number.isFinite(t), 'a number >= 0'),
    topP: fields.number('top_p', 1, (p) => p > 0 && p <= 1, 'a number in (0, 1]'),
    // -1 and 0 both mean "off" in vLLM and SGLang.
    topK: topK === -1 ? 0 : topK,
    stopStrings: fields.strings('stop'),
    stopTokenIds: withEos,
    skipSpecialTokens: fields.boolean('skip_special_tokens', true),
  };
}
