import { randomUUID } from 'node:crypto';
import type { GeneratedSequence } from '@taorl/rollout';
import type { ServeContext } from './context.js';
import { RequestFields } from './fields.js';
import { MAX_TOP_LOGPROBS, readBatchSettings, readPrompt } from './sampling.js';
import { outputText } from './text.js';

/** OpenAI's legacy log-probs object, one entry per generated token. */
export interface CompletionLogprobs {
  tokens: string[];
  token_logprobs: number[];
  /** The `logprobs` most likely tokens at each step plus the sampled one, token -> log-prob. */
  top_logprobs: Record<string, number>[];
  /** Where each token's text starts in `text`, in UTF-16 units. */
  text_offset: number[];
}

export interface CompletionChoice {
  index: number;
  text: string;
  logprobs: CompletionLogprobs | null;
  finish_reason: 'stop' | 'length';
  /** The stop string or stop token id that ended the text; null for length and for the model's EOS. */
  stop_reason: string | number | null;
  /** With return_token_ids. */
  token_ids?: number[];
  prompt_token_ids?: number[];
}

export interface CompletionResponse {
  id: string;
  object: 'text_completion';
  created: number;
  model: string;
  choices: CompletionChoice[];
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  /** taorl extension: the version of the weights that generated the choice (0 at start, +1 per reload). */
  weight_version: number;
}

/**
 * POST /v1/completions with vLLM's extensions for RL: the prompt as token ids, sampling settings, stop strings
 * and ids, log-probs with top alternatives, token ids back. One prompt and n = 1 per request.
 *
 * Log-probs are those of softmax(logits / temperature) before top-k / top-p, the distribution the trainer
 * recomputes (see `SamplingParams`); temperature 0 reports temperature 1.
 */
export async function completions(body: unknown, context: ServeContext): Promise<CompletionResponse> {
  const { limits } = context;
  const fields = RequestFields.of(body, null);
  if (fields.has('model') && fields.raw('model') !== context.modelName) {
    fields.fail(
      'model',
      `this server serves "${context.modelName}", not ${JSON.stringify(fields.raw('model'))}`,
    );
  }
  if (fields.boolean('stream', false)) fields.fail('stream', 'streaming is not supported');
  if (fields.boolean('echo', false)) fields.fail('echo', 'echo is not supported');
  const prompt = readPrompt(fields, 'prompt', limits);
  const maxTokens = fields.integer('max_tokens', 16, 1);
  if (prompt.length + maxTokens > limits.maxModelLen) {
    fields.fail(
      'max_tokens',
      `the model's maximum context length is ${limits.maxModelLen} tokens and the prompt has ${prompt.length}, ` +
        `so at most ${limits.maxModelLen - prompt.length} can be generated; ${maxTokens} were requested`,
    );
  }
  const settings = readBatchSettings(fields, limits);
  const requestedStopIds = fields.tokenIds('stop_token_ids', limits.vocabSize);
  const logprobs = fields.has('logprobs') ? fields.integer('logprobs', 0, 0, MAX_TOP_LOGPROBS) : null;
  const includeStop = fields.boolean('include_stop_str_in_output', false);
  const returnTokenIds = fields.boolean('return_token_ids', false);
  const tokensAsIds = fields.boolean('return_tokens_as_token_ids', false);
  const seed = fields.optionalInteger('seed');

  const { sequence, weightVersion } = await context.batcher.submit({
    prompt,
    maxTokens,
    settings,
    topLogprobs: logprobs ?? 0,
    ...(seed === undefined ? {} : { seed }),
  });
  const lastToken = sequence.tokens[sequence.tokens.length - 1]!;
  const choice: CompletionChoice = {
    index: 0,
    text: outputText(context.decode, sequence, {
      skipSpecialTokens: settings.skipSpecialTokens,
      keepStopString: includeStop,
      keepStopToken: true,
    }),
    logprobs:
      logprobs === null
        ? null
        : completionLogprobs(
            sequence,
            logprobs,
            (ids) => context.decode(ids, { skipSpecialTokens: false }),
            tokensAsIds,
          ),
    finish_reason: sequence.finishReason === 'length' ? 'length' : 'stop',
    stop_reason:
      sequence.finishReason === 'stop_string'
        ? sequence.stopString!
        : sequence.finishReason === 'stop_token' && requestedStopIds.includes(lastToken)
          ? lastToken
          : null,
  };
  if (returnTokenIds) {
    choice.token_ids = Array.from(sequence.tokens);
    choice.prompt_token_ids = Array.from(prompt);
  }
  return {
    id: `cmpl-${randomUUID().replaceAll('-', '')}`,
    object: 'text_completion',
    created: Math.floor(Date.now() / 1000),
    model: context.modelName,
    choices: [choice],
    usage: {
      prompt_tokens: prompt.length,
      completion_tokens: sequence.tokens.length,
      total_tokens: prompt.length + sequence.tokens.length,
    },
    weight_version: weightVersion,
  };
}

function completionLogprobs(
  sequence: GeneratedSequence,
  k: number,
  decode: (ids: Int32Array) => string,
  tokensAsIds: boolean,
): CompletionLogprobs {
  const tokenText = (id: number) => decode(Int32Array.of(id));
  // Token texts of byte-level vocabularies collide (every lone non-ASCII byte decodes to U+FFFD); "token_id:N"
  // names are unique, which is why RL clients ask for them.
  const name = (id: number) => (tokensAsIds ? `token_id:${id}` : tokenText(id));
  const ids = Array.from(sequence.tokens);
  const perStep =
    k === 0 || sequence.topLogprobs === undefined ? 0 : sequence.topLogprobs.ids.length / ids.length;
  let offset = 0;
  const textOffset = ids.map((id) => {
    const start = offset;
    offset += tokenText(id).length;
    return start;
  });
  return {
    tokens: ids.map(name),
    token_logprobs: Array.from(sequence.logProbs),
    top_logprobs: ids.map((id, step) => {
      const top: Record<string, number> = {};
      for (let j = 0; j < perStep; j++) {
        top[name(sequence.topLogprobs!.ids[step * perStep + j]!)] =
          sequence.topLogprobs!.logProbs[step * perStep + j]!;
      }
      top[name(id)] ??= sequence.logProbs[step]!;
      return top;
    }),
    text_offset: textOffset,
  };
}
