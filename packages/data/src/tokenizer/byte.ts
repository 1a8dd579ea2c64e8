import { createIncrementalDecoder } from './incremental';
import { encodePartsWith, tokenPattern } from './parts';
import type { DecodeOptions, IncrementalDecoder, TextPart, Tokenizer } from './types';

/**
 * Special tokens of the embedded model, in id order after the 256 byte tokens. ChatML markers so that the
 * embedded model and Qwen share one chat layout; "<|endoftext|>" pads.
 */
export const EMBEDDED_SPECIAL_TOKENS = ['<|endoftext|>', '<|im_start|>', '<|im_end|>'] as const;

export interface ByteTokenizerOptions {
  /** Special token texts; ids 256, 257, ... in this order. Default EMBEDDED_SPECIAL_TOKENS. */
  specialTokens?: readonly string[];
  /** Which special token ends a generation. Default "<|im_end|>". */
  eosToken?: string;
  /** Which special token pads. Default "<|endoftext|>". */
  padToken?: string;
}

const BYTE_COUNT = 256;

/**
 * The embedded model's tokenizer: one token per UTF-8 byte (ids 0-255) plus a few special tokens. Every string
 * round-trips exactly, the vocabulary is tiny, and no merges can differ between rollout and training.
 */
export class ByteTokenizer implements Tokenizer {
  readonly vocabSize: number;
  readonly specialTokens: ReadonlyMap<string, number>;
  readonly eosTokenId: number;
  readonly padTokenId: number;
  readonly #specialTexts: string[];
  readonly #specialPattern: RegExp;
  readonly #encoder = new TextEncoder();
  readonly #decoder = new TextDecoder('utf-8');

  constructor(options: ByteTokenizerOptions = {}) {
    const specials = [...(options.specialTokens ?? EMBEDDED_SPECIAL_TOKENS)];
    if (specials.length === 0 || new Set(specials).size !== specials.length || specials.includes('')) {
      throw new Error('ByteTokenizer: specialTokens must be a non-empty list of distinct, non-empty strings');
    }
    this.#specialTexts = specials;
    this.specialTokens = new Map(specials.map((text, i) => [text, BYTE_COUNT + i]));
    this.vocabSize = BYTE_COUNT + specials.length;
    this.eosTokenId = this.#requireSpecial(options.eosToken ?? '<|im_end|>', 'eosToken');
    this.padTokenId = this.#requireSpecial(options.padToken ?? '<|endoftext|>', 'padToken');
    this.#specialPattern = tokenPattern(specials) as RegExp;
  }

  #requireSpecial(text: string, option: string): number {
    const id = this.specialTokens.get(text);
    if (id === undefined) {
      throw new Error(`ByteTokenizer: ${option} ${JSON.stringify(text)} is not one of the special tokens`);
    }
    return id;
  }

  encode(text: string): Int32Array {
    const pieces: number[] = [];
    let start = 0;
    for (const match of text.matchAll(this.#specialPattern)) {
      for (const byte of this.#encoder.encode(text.slice(start, match.index))) pieces.push(byte);
      pieces.push(this.specialTokens.get(match[0]) as number);
      start = match.index + match[0].length;
    }
    if (start === 0) return this.encodeUntrusted(text);
    for (const byte of this.#encoder.encode(text.slice(start))) pieces.push(byte);
    return Int32Array.from(pieces);
  }

  encodeUntrusted(text: string): Int32Array {
    return Int32Array.from(this.#encoder.encode(text));
  }

  encodeParts(parts: readonly TextPart[]): Int32Array {
    return encodePartsWith(
      parts,
      this.#specialPattern,
      (token) => this.specialTokens.get(token) as number,
      (text) => this.encodeUntrusted(text),
    );
  }

  decode(ids: ArrayLike<number>, options: DecodeOptions = {}): string {
    let text = '';
    let bytes: number[] = [];
    const flushBytes = () => {
      if (bytes.length > 0) text += this.#decoder.decode(Uint8Array.from(bytes));
      bytes = [];
    };
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i] as number;
      if (id >= 0 && id < BYTE_COUNT) {
        bytes.push(id);
        continue;
      }
      const special = this.specialTokenText(id);
      if (special === undefined)
        throw new RangeError(`ByteTokenizer.decode: token id ${id} is not in the vocabulary`);
      flushBytes();
      if (!options.skipSpecialTokens) text += special;
    }
    flushBytes();
    return text;
  }

  createDecoder(options: DecodeOptions = {}): IncrementalDecoder {
    return createIncrementalDecoder((ids, o) => this.decode(ids, o), options);
  }

  specialTokenText(id: number): string | undefined {
    return this.#specialTexts[id - BYTE_COUNT];
  }
}
