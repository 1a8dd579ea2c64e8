import type { DecodeOptions, IncrementalDecoder } from './types';

const REPLACEMENT = '\uFFFD';

/**
 * Incremental decoding for any tokenizer with a batch `decode`, using the prefix/read-offset scheme of
 * huggingface/text-generation-inference (`decode_token`): decode the ids since the previous emission together
 * with the token before them (so decoders that treat a sequence start specially, e.g. Metaspace, see context),
 * and emit the new suffix only once it no longer ends in U+FFFD (a character still missing bytes). Only that
 * short window is kept, so the cost per token stays constant.
 */
export function createIncrementalDecoder(
  decode: (ids: number[], options?: DecodeOptions) => string,
  options: DecodeOptions = {},
): IncrementalDecoder {
  // window = [context tokens already emitted..., tokens not yet emitted...]; readOffset splits the two.
  let window: number[] = [];
  let readOffset = 0;
  return {
    push(id) {
      window.push(id);
      const before = readOffset > 0 ? decode(window.slice(0, readOffset), options) : '';
      const after = decode(window, options);
      if (after.length <= before.length || after.endsWith(REPLACEMENT)) return '';
      window = window.slice(readOffset);
      readOffset = window.length;
      return after.slice(before.length);
    },
    flush() {
      const before = readOffset > 0 ? decode(window.slice(0, readOffset), options) : '';
      const rest = window.length > readOffset ? decode(window, options).slice(before.length) : '';
      window = [];
      readOffset = 0;
      return rest;
    },
  };
}
