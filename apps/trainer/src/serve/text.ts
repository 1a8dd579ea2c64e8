import type { GeneratedSequence } from '@taorl/rollout';
import type { TextDecode } from './batcher.js';

export interface StopTextOptions {
  skipSpecialTokens: boolean;
  /** Keep the stop string that ended the sequence (vLLM include_stop_str_in_output, SGLang no_stop_trim). */
  keepStopString: boolean;
  /** Keep the text of the stop token that ended the sequence (vLLM keeps it; SGLang trims it). */
  keepStopToken: boolean;
}

/**
 * The generated text as the engines return it. The token ids always hold every sampled token; the text ends at
 * the stop string (before or after it), since text decoded past it belongs to the token that completed it.
 */
export function outputText(
  decode: TextDecode,
  sequence: GeneratedSequence,
  options: StopTextOptions,
): string {
  const { tokens, finishReason, stopString } = sequence;
  const { skipSpecialTokens } = options;
  if (finishReason === 'stop_token' && !options.keepStopToken) {
    return decode(tokens.subarray(0, -1), { skipSpecialTokens });
  }
  const text = decode(tokens, { skipSpecialTokens });
  if (finishReason !== 'stop_string' || stopString === undefined) return text;
  const at = text.indexOf(stopString);
  if (at < 0) return text;
  return text.slice(0, options.keepStopString ? at + stopString.length : at);
}
