import { setImmediate as nextTurn } from 'node:timers/promises';
import type { GeneratedSequence, RolloutPolicy } from '@taorl/rollout';

/** The tokenizer's decode (`Tokenizer.decode` fits). */
export type TextDecode = (ids: Int32Array, options: { skipSpecialTokens: boolean }) => string;

/** The sampling settings a batch shares: requests are batched together only when these are equal. */
export interface BatchSettings {
  temperature: number;
  topP: number;
  /** 0 = off. */
  topK: number;
  stopStrings: readonly string[];
  stopTokenIds: readonly number[];
  /** Whether the text (and so stop-string matching) leaves special tokens out. */
  skipSpecialTokens: boolean;
}

/** One request as the batcher serves it. */
export interface GenerationRequest {
  prompt: Int32Array;
  /** This request's own limit; the batch generates up to the largest and cuts each sequence at its own. */
  maxTokens: number;
  settings: BatchSettings;
  /** The batch samples with its first request's seed (see `GenerationBatcher`). */
  seed?: number;
  /** How many most likely ids to report per step (0 = none). */
  topLogprobs: number;
}

export interface GenerationResult {
  /** Cut at the request's `maxTokens`; `topLogprobs` holds exactly the request's k per step when it asked. */
  sequence: GeneratedSequence;
  /** The weights that produced it (0 = the weights the server started with, +1 per swap). */
  weightVersion: number;
}

export interface BatcherOptions<P extends RolloutPolicy> {
  /** Most requests per model call. */
  maxBatch: number;
  /** Turns generated ids into text, for stop strings. */
  decode: TextDecode;
  /** Ids `decode` can turn into text are [0, tokenizerVocabSize); the model never samples the others. */
  tokenizerVocabSize?: number;
  /** Frees a policy that a swap replaced, once no batch uses it. */
  release?(policy: P): void;
}

interface Pending {
  request: GenerationRequest;
  key: string;
  resolve(result: GenerationResult): void;
  reject(error: unknown): void;
}

interface Swap<P> {
  policy: P;
  resolve(version: number): void;
}

/**
 * Resolves once the event loop has polled for I/O: an immediate set from the poll phase (where request handlers run)
 * fires before the next poll, one set from the check phase after it, so two in a row always let I/O in.
 */
export async function afterPollingIo(): Promise<void> {
  await nextTurn();
  await nextTurn();
}

const batchKey = (s: BatchSettings) =>
  JSON.stringify([
    s.temperature,
    s.topP,
    s.topK,
    s.skipSpecialTokens,
    [...new Set(s.stopStrings)].sort(),
    [...new Set(s.stopTokenIds)].sort((a, b) => a - b),
  ]);

/**
 * Serves generation requests one model call at a time. While the model is busy, requests queue; each call takes
 * the oldest request and every queued request with equal `BatchSettings` (up to `maxBatch`), generates up to the
 * largest `maxTokens` and cuts each sequence at its own limit (finish 'length').
 *
 * A batch samples with one PRNG seeded by its first request's seed, so a seed reproduces a request's sample only
 * when that request is served alone (as on vLLM, where batching also changes the random stream).
 *
 * The event loop gets a turn before each model call (one call may hold it for its whole length, never more).
 *
 * Weight swaps happen between model calls: a call in flight finishes on the old policy, every later call uses the
 * new one, and no call ever sees a policy half loaded (the new policy is built before it is handed over).
 */
export class GenerationBatcher<P extends RolloutPolicy = RolloutPolicy> {
  #policy: P;
  #version = 0;
  #queue: Pending[] = [];
  #swaps: Swap<P>[] = [];
  #running = false;
  #idle: (() => void)[] = [];

  constructor(
    policy: P,
    private readonly options: BatcherOptions<P>,
  ) {
    this.#policy = policy;
  }

  get policy(): P {
    return this.#policy;
  }

  get weightVersion(): number {
    return this.#version;
  }

  /** Requests waiting for a model call (not counting those in the call under way). */
  get queued(): number {
    return this.#queue.length;
  }

  submit(request: GenerationRequest): Promise<GenerationResult> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ request, key: batchKey(request.settings), resolve, reject });
      void this.#drain();
    });
  }

  /** Hands `policy` over at the next boundary between model calls; resolves with the new weight version then. */
  swap(policy: P): Promise<number> {
    return new Promise((resolve) => {
      this.#swaps.push({ policy, resolve });
      void this.#drain();
    });
  }

  /** Resolves once no request is queued or running. */
  idle(): Promise<void> {
    if (!this.#running && this.#queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  async #drain(): Promise<void> {
    if (this.#running) return;
    this.#running = true;
    try {
      for (;;) {
        // A model call holds the event loop from start to end; between calls the loop takes its turn, so /health,
        // refusals and new arrivals are answered after at most one call, not after the whole queue.
        await afterPollingIo();
        this.#applySwaps();
        if (this.#queue.length === 0) break;
        await this.#serve(this.#takeBatch());
      }
    } finally {
      this.#running = false;
      for (const resolve of this.#idle.splice(0)) resolve();
    }
  }

  #applySwaps(): void {
    for (const swap of this.#swaps.splice(0)) {
      const old = this.#policy;
      this.#policy = swap.policy;
      this.#version += 1;
      this.options.release?.(old);
      swap.resolve(this.#version);
    }
  }

  #takeBatch(): Pending[] {
    const key = this.#queue[0]!.key;
    const batch: Pending[] = [];
    const rest: Pending[] = [];
    for (const pending of this.#queue) {
      if (pending.key === key && batch.length < this.options.maxBatch) batch.push(pending);
      else rest.push(pending);
    }
    this.#queue = rest;
    return batch;
  }

  async #serve(batch: Pending[]): Promise<void> {
    const first = batch[0]!.request;
    const k = Math.max(...batch.map((p) => p.request.topLogprobs));
    const version = this.#version;
    try {
      const sequences = await this.#policy.generate(
        batch.map((p) => p.request.prompt),
        {
          maxNewTokens: Math.max(...batch.map((p) => p.request.maxTokens)),
          temperature: first.settings.temperature,
          topP: first.settings.topP,
          topK: first.settings.topK,
          stopStrings: first.settings.stopStrings,
          stopTokenIds: first.settings.stopTokenIds,
          decode: (ids) => this.options.decode(ids, { skipSpecialTokens: first.settings.skipSpecialTokens }),
          topLogprobs: k,
          ...(first.seed === undefined ? {} : { seed: first.seed }),
          ...(this.options.tokenizerVocabSize === undefined
            ? {}
            : { tokenizerVocabSize: this.options.tokenizerVocabSize }),
        },
      );
      const perStep = Math.min(k, this.#policy.vocabSize, this.options.tokenizerVocabSize ?? k);
      for (const [i, p] of batch.entries()) {
        p.resolve({ sequence: forRequest(sequences[i]!, p.request, perStep), weightVersion: version });
      }
    } catch (error) {
      for (const p of batch) p.reject(error);
    }
  }
}

/** A batch's sequence as one request asked for it: cut at its `maxTokens`, with its own k top log-probs. */
function forRequest(
  sequence: GeneratedSequence,
  request: GenerationRequest,
  perStep: number,
): GeneratedSequence {
  const n = Math.min(sequence.tokens.length, request.maxTokens);
  const cut = n < sequence.tokens.length;
  const result: GeneratedSequence = {
    tokens: sequence.tokens.slice(0, n),
    logProbs: sequence.logProbs.slice(0, n),
    entropies: sequence.entropies.slice(0, n),
    finishReason: cut ? 'length' : sequence.finishReason,
  };
  if (!cut && sequence.stopString !== undefined) result.stopString = sequence.stopString;
  const top = sequence.topLogprobs;
  const own = Math.min(request.topLogprobs, perStep);
  if (top !== undefined && own > 0) {
    const pick = (values: Int32Array | Float32Array, step: number) =>
      values.subarray(step * perStep, step * perStep + own);
    const ids = new Int32Array(n * own);
    const logProbs = new Float32Array(n * own);
    for (let step = 0; step < n; step++) {
      ids.set(pick(top.ids, step), step * own);
      logProbs.set(pick(top.logProbs, step), step * own);
    }
    result.topLogprobs = { ids, logProbs };
  }
  return result;
}
