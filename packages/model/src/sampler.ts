/** Truncation and temperature of one sampling step (see `SamplingParams`). */
export interface SamplerSettings {
  temperature: number;
  topK: number;
  topP: number;
  /** How many of the most likely ids to report with their log-probs (`TokenChoice.top`). Default 0. */
  topLogprobs?: number;
  /** Only ids below this are drawn or reported in `top` (`SamplingParams.tokenizerVocabSize`). Default: all. */
  sampleableIds?: number;
}

/** A sampled token with its log-prob and the entropy of the full (tempered, untruncated) distribution. */
export interface TokenChoice {
  id: number;
  logProb: number;
  entropy: number;
  /** The min(topLogprobs, vocab) most likely ids, most likely first, and their log-probs (same distribution). */
  top?: { ids: number[]; logProbs: number[] };
}

/**
 * Samples one token from logits[offset, offset + vocab), in float64. The recorded log-prob and entropy describe
 * softmax(logits / temperature) before top-k / top-p, the distribution the training loss recomputes; greedy
 * (temperature 0) takes the lowest argmax id and records temperature 1. Ids from `sampleableIds` on are left out
 * first, then top-k then top-p, each on the renormalised remainder, as vLLM orders them.
 */
export function chooseToken(
  logits: Float32Array,
  offset: number,
  vocab: number,
  settings: SamplerSettings,
  random: () => number,
): TokenChoice {
  const scale = settings.temperature > 0 ? 1 / settings.temperature : 1;
  // Ids [0, sampleable) may be drawn; the recorded distribution is over all `vocab` ids.
  const sampleable = Math.min(vocab, settings.sampleableIds ?? vocab);
  let max = Number.NEGATIVE_INFINITY;
  let sampleableMax = Number.NEGATIVE_INFINITY;
  let argmax = 0;
  for (let i = 0; i < vocab; i++) {
    const z = logits[offset + i]! * scale;
    if (z > max) max = z;
    if (i < sampleable && z > sampleableMax) {
      sampleableMax = z;
      argmax = i;
    }
  }
  let sumExp = 0;
  let sumExpZ = 0;
  let sampleableSumExp = 0;
  for (let i = 0; i < vocab; i++) {
    const z = logits[offset + i]! * scale;
    const e = Math.exp(z - max);
    sumExp += e;
    sumExpZ += e * z;
    if (i < sampleable) sampleableSumExp += e;
  }
  const logNormalizer = max + Math.log(sumExp);
  const entropy = logNormalizer - sumExpZ / sumExp;
  const logProbOf = (id: number) => logits[offset + id]! * scale - logNormalizer;
  const truncated = (settings.topK > 0 && settings.topK < sampleable) || settings.topP < 1;
  const id =
    settings.temperature === 0
      ? argmax
      : truncated
        ? sampleTruncated(logits, offset, sampleable, scale, max, settings, random)
        : sampleFull(logits, offset, sampleable, scale, max, sampleableSumExp, random);
  const k = Math.min(settings.topLogprobs ?? 0, sampleable);
  if (k <= 0) return { id, logProb: logProbOf(id), entropy };
  const ids = mostLikely(logits, offset, sampleable, k);
  return { id, logProb: logProbOf(id), entropy, top: { ids, logProbs: ids.map(logProbOf) } };
}

/** The k largest logits' ids, largest first, lower id first among equals: one pass keeping a sorted shortlist. */
function mostLikely(logits: Float32Array, offset: number, vocab: number, k: number): number[] {
  const ids: number[] = [];
  for (let i = 0; i < vocab; i++) {
    const z = logits[offset + i]!;
    if (ids.length === k && z <= logits[offset + ids[k - 1]!]!) continue;
    let at = ids.length === k ? k - 1 : ids.length;
    while (at > 0 && z > logits[offset + ids[at - 1]!]!) {
      ids[at] = ids[at - 1]!;
      at--;
    }
    ids[at] = i;
  }
  return ids;
}

function sampleFull(
  logits: Float32Array,
  offset: number,
  vocab: number,
  scale: number,
  max: number,
  sumExp: number,
  random: () => number,
): number {
  let target = random() * sumExp;
  for (let i = 0; i < vocab; i++) {
    target -= Math.exp(logits[offset + i]! * scale - max);
    if (target < 0) return i;
  }
  return vocab - 1;
}

function sampleTruncated(
  logits: Float32Array,
  offset: number,
  vocab: number,
  scale: number,
  max: number,
  settings: SamplerSettings,
  random: () => number,
): number {
  const order = Array.from({ length: vocab }, (_, i) => i).sort(
    (a, b) => logits[offset + b]! - logits[offset + a]!,
  );
  const keep = settings.topK > 0 ? Math.min(settings.topK, vocab) : vocab;
  const weights = order.slice(0, keep).map((id) => Math.exp(logits[offset + id]! * scale - max));
  const total = weights.reduce((a, b) => a + b, 0);
  // Nucleus: the shortest prefix (by probability) whose mass reaches topP.
  let nucleus = weights.length;
  if (settings.topP < 1) {
    let mass = 0;
    for (let i = 0; i < weights.length; i++) {
      mass += weights[i]! / total;
      if (mass >= settings.topP) {
        nucleus = i + 1;
        break;
      }
    }
  }
  const nucleusMass = weights.slice(0, nucleus).reduce((a, b) => a + b, 0);
  let target = random() * nucleusMass;
  for (let i = 0; i < nucleus; i++) {
    target -= weights[i]!;
    if (target < 0) return order[i]!;
  }
  return order[nucleus - 1]!;
}
