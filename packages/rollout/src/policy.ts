/**
 * How `RolloutPolicy.generate` samples. Every field but `maxNewTokens` is optional.
 *
 * The distribution that is sampled, and whose log-prob and entropy are recorded, is softmax(logits / temperature)
 * before top-k / top-p truncation (verl's convention: the actor divides its training logits by the same
 * temperature, so recorded and recomputed log-probs describe the same distribution). temperature 0 means greedy
 * decoding, recorded at temperature 1.
 */
export interface SamplingParams {
  /** Upper bound on generated tokens per sequence in this call. */
  maxNewTokens: number;
  /** Default 1. 0 = greedy (argmax). */
  temperature?: number;
  /** Nucleus sampling: keep the smallest set of tokens whose probability reaches topP. Default 1 (off). */
  topP?: number;
  /** Keep only the k most probable tokens. Default 0 (off). */
  topK?: number;
  /** A sequence stops after sampling one of these ids (the id is kept in `tokens`). */
  stopTokenIds?: readonly number[];
  /** A sequence stops once its decoded generated text contains one of these (needs `decode`). */
  stopStrings?: readonly string[];
  /** Turns generated ids into text, for `stopStrings`; usually the tokenizer's decode. */
  decode?: (ids: Int32Array) => string;
  /** Seed of the sampler's PRNG, for reproducible sampling. Default: a fresh random seed per call. */
  seed?: number;
  /**
   * Also report the k most likely ids at each step with their log-probs (`GeneratedSequence.topLogprobs`), under
   * the distribution the recorded log-probs describe. Default 0 (off, no cost).
   */
  topLogprobs?: number;
  /**
   * The tokenizer's vocabulary size when the model's is larger (Qwen3: 151936 logits for a 151669-token
   * tokenizer): ids at or above it are padding rows that no text maps to, so they are never sampled nor listed in
   * `topLogprobs`. Like top-k / top-p, this only restricts what is drawn: recorded log-probs and entropies still
   * describe the model's whole distribution, the one the trainer recomputes. Default: every id of the model. The
   * local model applies it; inference servers (RemotePolicy) do their own sampling.
   */
  tokenizerVocabSize?: number;
}

/** Why a generated sequence ended. */
export type FinishReason = 'stop_token' | 'stop_string' | 'length';

/** One generated continuation; the three arrays have one entry per generated token. */
export interface GeneratedSequence {
  /** The sampled ids, including the stop token or the tokens that completed a stop string. */
  tokens: Int32Array;
  /** log p(token) under the sampled distribution (see `SamplingParams`), as recorded while sampling. */
  logProbs: Float32Array;
  /** Entropy (nats) of the full sampled distribution at each step, before top-k / top-p truncation. */
  entropies: Float32Array;
  finishReason: FinishReason;
  /** The stop string that ended the sequence, when `finishReason` is 'stop_string'. */
  stopString?: string;
  /**
   * When `SamplingParams.topLogprobs` is k > 0: min(k, vocabSize, tokenizerVocabSize) entries per generated token, flat, the most likely
   * id first (ties: lower id first), with log p under the same distribution as `logProbs`.
   */
  topLogprobs?: { ids: Int32Array; logProbs: Float32Array };
}

/**
 * The sampling side of a policy, all a rollout needs: the local model, or remote inference servers (RemotePolicy).
 */
export interface RolloutPolicy {
  /** Size of the output distribution; token ids are in [0, vocabSize). */
  readonly vocabSize: number;
  /** Longest prefix + generation the model accepts (RoPE table size). */
  readonly maxSequenceLength: number;
  /**
   * True when overlapping `generate` calls run in parallel (inference servers batch concurrent requests), so the
   * rollout engine's lanes may call at once. Absent or false: one model, calls are made one at a time.
   */
  readonly concurrentGenerate?: boolean;
  /**
   * Batched sampling. prompts[i] is the full prefix of sequence i (lengths may differ); each sequence stops on its
   * own (stop id, stop string, or maxNewTokens) while the others continue.
   */
  generate(prompts: readonly Int32Array[], sampling: SamplingParams): Promise<GeneratedSequence[]>;
  /**
   * Called by the rollout engine before a batch's first `generate`: a policy that samples from copies of the
   * trained weights (rollout worker threads, `RolloutWorkers`) brings them up to date here.
   */
  beforeRollout?(): void;
}
