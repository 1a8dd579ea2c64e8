import { seededRandom } from '@taorl/eval';
import type { FinishReason, GeneratedSequence, SamplingParams } from '@taorl/rollout';
import * as tf from '@tensorflow/tfjs';
import type { ModelConfig } from './config.js';
import { type DecoderWeights, decoderHidden, headMatrix, type LayerCache, MASKED } from './decoder.js';
import { padRows } from './padded-rows.js';
import { ropeTables } from './rope.js';
import { chooseToken, type SamplerSettings } from './sampler.js';

/** One sequence's progress through generation. */
interface Running {
  promptLength: number;
  /** Left padding of this sequence inside the batch's prefill. */
  pad: number;
  tokens: number[];
  logProbs: number[];
  entropies: number[];
  /** Flat top-k ids and log-probs, when `sampling.topLogprobs` asks for them. */
  topIds: number[];
  topLogProbs: number[];
  finishReason?: FinishReason;
  stopString?: string;
}

function settingsOf(sampling: SamplingParams): SamplerSettings {
  const { maxNewTokens, temperature = 1, topK = 0, topP = 1, topLogprobs = 0 } = sampling;
  if (!Number.isInteger(maxNewTokens) || maxNewTokens < 0) {
    throw new Error(`sampling.maxNewTokens must be a non-negative integer, got ${maxNewTokens}`);
  }
  if (!(temperature >= 0)) throw new Error(`sampling.temperature must be >= 0, got ${temperature}`);
  if (!Number.isInteger(topK) || topK < 0)
    throw new Error(`sampling.topK must be an integer >= 0, got ${topK}`);
  if (!(topP > 0 && topP <= 1)) throw new Error(`sampling.topP must be in (0, 1], got ${topP}`);
  if (!Number.isInteger(topLogprobs) || topLogprobs < 0)
    throw new Error(`sampling.topLogprobs must be an integer >= 0, got ${topLogprobs}`);
  if ((sampling.stopStrings?.length ?? 0) > 0 && !sampling.decode) {
    throw new Error('sampling.stopStrings needs sampling.decode to turn generated ids into text');
  }
  const { tokenizerVocabSize } = sampling;
  if (tokenizerVocabSize === undefined) return { temperature, topK, topP, topLogprobs };
  if (!Number.isInteger(tokenizerVocabSize) || tokenizerVocabSize < 1)
    throw new Error(`sampling.tokenizerVocabSize must be an integer >= 1, got ${tokenizerVocabSize}`);
  return { temperature, topK, topP, topLogprobs, sampleableIds: tokenizerVocabSize };
}

function checkPrompts(prompts: readonly Int32Array[], config: ModelConfig): void {
  prompts.forEach((p, i) => {
    if (p.length === 0) throw new Error(`prompt ${i} is empty; generation needs at least one prefix token`);
    if (p.length >= config.maxPositionEmbeddings) {
      throw new Error(
        `prompt ${i} has ${p.length} tokens; the model takes at most ${config.maxPositionEmbeddings}`,
      );
    }
    const bad = p.findIndex((id) => id < 0 || id >= config.vocabSize);
    if (bad >= 0)
      throw new Error(
        `prompt ${i}: token ${p[bad]} at ${bad} is outside the vocabulary [0, ${config.vocabSize})`,
      );
  });
}

/** Additive mask [b, t, len] for new queries at the end of `len` keys, hiding each row's left padding. */
function paddedCausalMask(pads: number[], t: number, len: number): tf.Tensor {
  const values = new Float32Array(pads.length * t * len);
  pads.forEach((pad, b) => {
    for (let i = 0; i < t; i++) {
      const row = (b * t + i) * len;
      const lastVisible = len - t + i;
      for (let j = 0; j < len; j++) if (j < pad || j > lastVisible) values[row + j] = MASKED;
    }
  });
  return tf.tensor(values, [pads.length, t, len]);
}

function keepRows(cache: LayerCache[], rows: number[], kvHeads: number): LayerCache[] {
  const index = tf.tensor1d(
    rows.flatMap((r) => Array.from({ length: kvHeads }, (_, h) => r * kvHeads + h)),
    'int32',
  );
  const kept = cache.map((c) => ({ keysT: tf.gather(c.keysT, index), values: tf.gather(c.values, index) }));
  index.dispose();
  return kept;
}

/** The logits of one decoding step and the grown cache. */
interface Step {
  logits: tf.Tensor;
  cache: LayerCache[];
}

/** tf.tidy for a `Step` (tidy keeps every tensor nested in the returned object; its types only admit flat maps). */
function tidyStep(fn: () => Step): Step {
  return tf.tidy(fn as unknown as () => tf.TensorContainer) as unknown as Step;
}

function disposeCache(cache: LayerCache[]): void {
  for (const c of cache) tf.dispose([c.keysT, c.values]);
}

/**
 * Batched sampling with a KV cache. Prompts are left-padded to a common length for one prefill pass (each row's
 * positions start at 0 after its padding, and its padding is masked), then one token per running sequence per
 * step; finished sequences leave the batch, so their rows cost nothing afterwards.
 */
export async function generate(
  config: ModelConfig,
  weights: DecoderWeights,
  prompts: readonly Int32Array[],
  sampling: SamplingParams,
): Promise<GeneratedSequence[]> {
  const settings = settingsOf(sampling);
  checkPrompts(prompts, config);
  const random = seededRandom(sampling.seed ?? Math.floor(Math.random() * 2 ** 32));
  const stopIds = new Set(sampling.stopTokenIds ?? []);
  const stopStrings = sampling.stopStrings ?? [];
  const vocab = config.vocabSize;
  const width = Math.max(0, ...prompts.map((p) => p.length));
  const runs: Running[] = prompts.map((p) => ({
    promptLength: p.length,
    pad: width - p.length,
    tokens: [],
    logProbs: [],
    entropies: [],
    topIds: [],
    topLogProbs: [],
  }));
  let active = runs.map((_, i) => i);
  const head =
    sampling.maxNewTokens > 0 && active.length > 0 ? tf.tidy(() => headMatrix(weights)) : undefined;
  const headIsVariable = head === weights.lmHead;
  let cache: LayerCache[] = [];
  try {
    if (!head) return runs.map((run) => finish(run, settings));
    // Prefill: the whole left-padded batch at once; only each row's last position is projected to logits.
    const pads = runs.map((r) => r.pad);
    const tokens = padRows(new Int32Array(prompts.length * width), width, prompts, pads);
    const positions = new Int32Array(prompts.length * width);
    prompts.forEach((_, b) => {
      for (let t = 0; t < width; t++) positions[b * width + t] = Math.max(0, t - pads[b]!);
    });
    let step = tidyStep(() => {
      const input = tf.tensor2d(tokens, [prompts.length, width], 'int32');
      const rope = ropeTables(positions, [prompts.length, width], config.headDim, config.ropeTheta);
      const mask = paddedCausalMask(pads, width, width);
      // Each token's predecessor (-1 where it has none): the prompt shifted one column right.
      const prevTokens = padRows(
        new Int32Array(prompts.length * width).fill(-1),
        width,
        prompts.map((p) => p.subarray(0, p.length - 1)),
        pads.map((pad) => pad + 1),
      );
      const prev = tf.tensor2d(prevTokens, [prompts.length, width], 'int32');
      const out = decoderHidden(weights, config, input, { rope, mask, collectCache: true, prevTokens: prev });
      const lastRows = tf.range(width - 1, prompts.length * width, width, 'int32');
      return { logits: tf.matMul(tf.gather(out.hidden, lastRows), head), cache: out.cache };
    });
    cache = step.cache;
    for (let n = 1; ; n++) {
      const logits = (await step.logits.data()) as Float32Array;
      step.logits.dispose();
      const stillRunning: number[] = [];
      active.forEach((i, row) => {
        const run = runs[i]!;
        const choice = chooseToken(logits, row * vocab, vocab, settings, random);
        run.tokens.push(choice.id);
        run.logProbs.push(choice.logProb);
        run.entropies.push(choice.entropy);
        if (choice.top) {
          run.topIds.push(...choice.top.ids);
          run.topLogProbs.push(...choice.top.logProbs);
        }
        if (!stopped(run, choice.id, stopIds, stopStrings, sampling, config)) stillRunning.push(row);
      });
      if (stillRunning.length === 0) break;
      if (stillRunning.length < active.length) {
        const kept = keepRows(cache, stillRunning, config.numKvHeads);
        disposeCache(cache);
        cache = kept;
        active = stillRunning.map((row) => active[row]!);
      }
      const len = width + n;
      const past = cache;
      step = tidyStep(() => {
        const batch = active.length;
        const input = tf.tensor2d(
          active.map((i) => runs[i]!.tokens[n - 1]!),
          [batch, 1],
          'int32',
        );
        const pos = Int32Array.from(active, (i) => runs[i]!.promptLength + n - 1);
        const rope = ropeTables(pos, [batch, 1], config.headDim, config.ropeTheta);
        const mask = paddedCausalMask(
          active.map((i) => runs[i]!.pad),
          1,
          len,
        );
        const prev = tf.tensor2d(
          active.map((i) => (n >= 2 ? runs[i]!.tokens[n - 2]! : (prompts[i]![prompts[i]!.length - 1] ?? -1))),
          [batch, 1],
          'int32',
        );
        const out = decoderHidden(weights, config, input, { rope, mask, cache: past, prevTokens: prev });
        return { logits: tf.matMul(out.hidden, head), cache: out.cache };
      });
      disposeCache(past);
      cache = step.cache;
    }
    return runs.map((run) => finish(run, settings));
  } finally {
    disposeCache(cache);
    if (head && !headIsVariable) head.dispose();
  }
}

/** Records why `run` ends after sampling `id`, if it does. */
function stopped(
  run: Running,
  id: number,
  stopIds: Set<number>,
  stopStrings: readonly string[],
  sampling: SamplingParams,
  config: ModelConfig,
): boolean {
  if (stopIds.has(id)) {
    run.finishReason = 'stop_token';
    return true;
  }
  if (stopStrings.length > 0 && sampling.decode) {
    const text = sampling.decode(Int32Array.from(run.tokens));
    const hit = stopStrings.find((s) => text.includes(s));
    if (hit !== undefined) {
      run.finishReason = 'stop_string';
      run.stopString = hit;
      return true;
    }
  }
  if (
    run.tokens.length >= sampling.maxNewTokens ||
    run.promptLength + run.tokens.length >= config.maxPositionEmbeddings
  ) {
    run.finishReason = 'length';
    return true;
  }
  return false;
}

function finish(run: Running, settings: SamplerSettings): GeneratedSequence {
  const sequence: GeneratedSequence = {
    tokens: Int32Array.from(run.tokens),
    logProbs: Float32Array.from(run.logProbs),
    entropies: Float32Array.from(run.entropies),
    finishReason: run.finishReason ?? 'length',
  };
  if (run.stopString !== undefined) sequence.stopString = run.stopString;
  if ((settings.topLogprobs ?? 0) > 0) {
    sequence.topLogprobs = { ids: Int32Array.from(run.topIds), logProbs: Float32Array.from(run.topLogProbs) };
  }
  return sequence;
}
