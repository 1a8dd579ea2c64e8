import { createIncrementalDecoder, type DecodeOptions, type Tokenizer } from '@taorl/data';

/**
 * The tokenizer of a model with more output rows than the tokenizer has ids (Qwen3: 151936 logits for 151669
 * tokens). The local model never samples those padding ids (`SamplingParams.tokenizerVocabSize`), but an inference
 * server may; decoding one gives '' as transformers and vLLM do, instead of failing the rollout, while the id itself
 * stays in the trajectory. Ids past the model's vocabulary (or negative) still fail. The same tokenizer when the
 * model has no padding rows.
 */
export function paddedVocabTokenizer(tokenizer: Tokenizer, modelVocabSize: number): Tokenizer {
  const known = tokenizer.vocabSize;
  if (modelVocabSize <= known) return tokenizer;
  const decode = (ids: ArrayLike<number>, options?: DecodeOptions): string =>
    tokenizer.decode(
      Array.from(ids).filter((id) => !(id >= known && id < modelVocabSize)),
      options,
    );
  return {
    vocabSize: known,
    specialTokens: tokenizer.specialTokens,
    eosTokenId: tokenizer.eosTokenId,
    padTokenId: tokenizer.padTokenId,
    encode: (text) => tokenizer.encode(text),
    encodeUntrusted: (text) => tokenizer.encodeUntrusted(text),
    encodeParts: (parts) => tokenizer.encodeParts(parts),
    decode,
    createDecoder: (options) => createIncrementalDecoder(decode, options),
    specialTokenText: (id) => tokenizer.specialTokenText(id),
  };
}
