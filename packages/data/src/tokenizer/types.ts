/** Turns a stream of token ids into text pieces without splitting a multi-byte character across pieces. */
export interface IncrementalDecoder {
  /** Adds one token; returns the text that became final with it ('' while a character is incomplete). */
  push(id: number): string;
  /** Returns whatever is still held back (an incomplete character decodes to U+FFFD) and resets. */
  flush(): string;
}

export interface DecodeOptions {
  /** Drop special tokens (EOS, chat markers) from the text. Default false. */
  skipSpecialTokens?: boolean;
}

/** A piece of text for `Tokenizer.encodeParts`: markup (trusted) or content that must never become a token. */
export interface TextPart {
  text: string;
  untrusted?: boolean;
}

/**
 * What the rest of taorl needs from a tokenizer. `encode` treats special-token strings in the text as special
 * tokens (for trusted text such as rendered chat templates); `encodeUntrusted` never produces a special token
 * (for tool output and user data, so a literal "<|im_end|>" cannot end a turn).
 */
export interface Tokenizer {
  readonly vocabSize: number;
  /** Special tokens by their text, e.g. "<|im_end|>" -> id. */
  readonly specialTokens: ReadonlyMap<string, number>;
  /** The token that ends a generation (an assistant turn). */
  readonly eosTokenId: number;
  readonly padTokenId: number;
  encode(text: string): Int32Array;
  encodeUntrusted(text: string): Int32Array;
  /**
   * Encodes text assembled from trusted markup and untrusted content (a rendered chat template with a tool's output
   * in it): added and special tokens are recognised in trusted parts only, and the text between two such tokens is
   * encoded as one run across part boundaries. The ids are therefore `encode` of the joined text whenever no
   * untrusted part spells a token, and a literal "<|im_end|>" in an untrusted part stays text.
   */
  encodeParts(parts: readonly TextPart[]): Int32Array;
  decode(ids: ArrayLike<number>, options?: DecodeOptions): string;
  createDecoder(options?: DecodeOptions): IncrementalDecoder;
  /** The text of a special token id, or undefined when the id is not special. */
  specialTokenText(id: number): string | undefined;
}
