import { Tokenizer as HfCoreTokenizer } from '@huggingface/tokenizers';
import { createIncrementalDecoder } from './incremental';
import { encodePartsWith, tokenPattern } from './parts';
import type { DecodeOptions, IncrementalDecoder, TextPart, Tokenizer } from './types';

/** The fields of tokenizer_config.json that taorl reads (the file has many more). */
export interface HfTokenizerConfig {
  eos_token?: string | { content: string } | null;
  pad_token?: string | { content: string } | null;
  bos_token?: string | { content: string } | null;
  chat_template?: string | Array<{ name: string; template: string }> | null;
  [key: string]: unknown;
}

/** The fields of tokenizer.json that taorl reads. */
interface HfTokenizerJson {
  added_tokens?: Array<{ id: number; content: string; special?: boolean }>;
  model?: unknown;
  [key: string]: unknown;
}

function tokenText(value: HfTokenizerConfig['eos_token']): string | undefined {
  if (value === null || value === undefined) return undefined;
  return typeof value === 'string' ? value : value.content;
}

/**
 * A Hugging Face tokenizer (tokenizer.json + tokenizer_config.json) behind taorl's Tokenizer interface, on top of
 * @huggingface/tokenizers. `encode` honours added tokens ("<|im_start|>", "<think>", ...) as the chat template
 * needs; `encodeUntrusted` runs the same normalizer, pre-tokenizer and model but never looks for added tokens,
 * so tool output that contains "<|im_end|>" stays literal text.
 */
export class HfTokenizer implements Tokenizer {
  readonly vocabSize: number;
  readonly specialTokens: ReadonlyMap<string, number>;
  readonly eosTokenId: number;
  readonly padTokenId: number;
  /** tokenizer_config.json as loaded; ChatTemplate.fromTokenizerConfig reads its chat_template. */
  readonly config: HfTokenizerConfig;
  readonly #core: HfCoreTokenizer;
  readonly #specialById: Map<number, string>;
  /** Every added token (special or not: "<tool_response>" of Qwen3 is not special) by its text. */
  readonly #addedIds: Map<string, number>;
  readonly #addedPattern: RegExp | null;

  /**
   * From the parsed tokenizer.json and tokenizer_config.json, in any runtime; loadHfTokenizer of
   * @taorl/data/node reads them (and chat_template.jinja) from a model folder.
   */
  constructor(tokenizerJson: object, config: HfTokenizerConfig) {
    this.config = config;
    this.#core = new HfCoreTokenizer(tokenizerJson, config);
    const added = (tokenizerJson as HfTokenizerJson).added_tokens ?? [];
    const special = added.filter((token) => token.special);
    this.specialTokens = new Map(special.map((token) => [token.content, token.id]));
    this.#specialById = new Map(special.map((token) => [token.id, token.content]));
    this.#addedIds = new Map(added.map((token) => [token.content, token.id]));
    this.#addedPattern = tokenPattern(this.#addedIds.keys());
    const model = this.#core.model;
    const highest = Math.max(model ? model.vocab.length - 1 : -1, ...added.map((token) => token.id));
    this.vocabSize = highest + 1;
    this.eosTokenId = this.#idOf(tokenText(config.eos_token), 'eos_token');
    const pad = tokenText(config.pad_token);
    this.padTokenId = pad === undefined ? this.eosTokenId : this.#idOf(pad, 'pad_token');
  }

  #idOf(text: string | undefined, field: string): number {
    const id = text === undefined ? undefined : this.#core.token_to_id(text);
    if (id === undefined) {
      throw new Error(
        `tokenizer_config.json ${field} ${JSON.stringify(text)} is not a token of tokenizer.json`,
      );
    }
    return id;
  }

  encode(text: string): Int32Array {
    if (text === '') return new Int32Array(0);
    return Int32Array.from(this.#core.encode(text, { add_special_tokens: false }).ids);
  }

  encodeUntrusted(text: string): Int32Array {
    const core = this.#core;
    const model = core.model;
    if (text === '' || !model) return new Int32Array(0);
    const normalized = core.normalizer ? core.normalizer(text) : text;
    const words = core.pre_tokenizer ? core.pre_tokenizer(normalized) : [normalized];
    // Map through the model's own vocabulary only: the core's id lookup consults added tokens first, which
    // would turn a BPE piece spelled like "<|im_end|>" back into the special token.
    const pieces = model(words);
    const ids = new Int32Array(pieces.length);
    for (let i = 0; i < pieces.length; i++) {
      const id = model.tokens_to_ids.get(pieces[i] as string) ?? model.unk_token_id;
      if (id === undefined) throw new Error(`HfTokenizer: piece ${JSON.stringify(pieces[i])} has no id`);
      ids[i] = id;
    }
    return ids;
  }

  /**
   * Added tokens are matched on the raw text, as tokenizer.json's non-normalized, unstripped added tokens (all of
   * Qwen's) are; the runs between them go through `encodeUntrusted`.
   */
  encodeParts(parts: readonly TextPart[]): Int32Array {
    return encodePartsWith(
      parts,
      this.#addedPattern,
      (token) => this.#addedIds.get(token) as number,
      (text) => this.encodeUntrusted(text),
    );
  }

  decode(ids: ArrayLike<number>, options: DecodeOptions = {}): string {
    if (ids.length === 0) return '';
    const array = Array.from(ids);
    const bad = array.find((id) => !Number.isInteger(id) || id < 0 || id >= this.vocabSize);
    if (bad !== undefined)
      throw new RangeError(`HfTokenizer.decode: token id ${bad} is not in the vocabulary`);
    return this.#core.decode(array, {
      skip_special_tokens: options.skipSpecialTokens ?? false,
      clean_up_tokenization_spaces: false,
    });
  }

  createDecoder(options: DecodeOptions = {}): IncrementalDecoder {
    return createIncrementalDecoder((ids, o) => this.decode(ids, o), options);
  }

  specialTokenText(id: number): string | undefined {
    return this.#specialById.get(id);
  }
}
