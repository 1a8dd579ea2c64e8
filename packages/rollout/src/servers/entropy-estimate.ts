/**
 * Entropy (nats) of a next-token distribution over `vocabSize` ids, estimated from what an inference server
 * returns: log-probs of a few ids, never the full distribution.
 *
 * With known log-probs (k >= 1: the server's top-k alternatives, plus the sampled id when it lies outside them;
 * ids distinct): the known part is exact, sum over known ids of -p log p, and the remaining mass
 * r = 1 - sum(p) is taken as spread uniformly over the other V - k ids, adding -r log(r / (V - k)). For a fixed
 * mass over a fixed number of ids the uniform spread has the largest entropy, so the estimate is an upper bound of
 * the exact entropy (and at least the exact known part); it tightens as k grows and is exact at k = V. The bound is
 * loose when r is large and V is big (r = 0.1 over 150k ids adds ~1.2 nats); the tail entropy is at least
 * -r log(p_min) with p_min the smallest known probability, which brackets the error.
 *
 * Without alternatives (k = 0): the sampled token's surprisal -log p(sampled). Its expectation over tokens drawn
 * from the distribution is exactly the entropy, so it is an unbiased single-sample estimate (high variance per
 * token, right on average over a batch). It is only unbiased when the token was drawn from the distribution whose
 * log-prob is recorded: greedy decoding or top-k / top-p truncation bias it low.
 *
 * @param topLogProbs log-probs of distinct ids (the top-k alternatives, plus the sampled id when outside them)
 * @param vocabSize V, the number of ids of the distribution
 * @param sampledLogProb log p of the sampled token; used when `topLogProbs` is empty
 */
export function entropyFromTopLogprobs(
  topLogProbs: readonly number[],
  vocabSize: number,
  sampledLogProb = Number.NaN,
): number {
  if (topLogProbs.length === 0) {
    if (!Number.isFinite(sampledLogProb)) {
      throw new RangeError('entropyFromTopLogprobs: no top log-probs and no finite sampledLogProb');
    }
    return -sampledLogProb;
  }
  let known = 0;
  let mass = 0;
  for (const logProb of topLogProbs) {
    const p = Math.exp(logProb);
    mass += p;
    if (p > 0) known -= p * logProb;
  }
  const rest = 1 - mass;
  const others = vocabSize - topLogProbs.length;
  // Servers round log-probs (bf16 logits), so the known mass can reach or pass 1: no tail then.
  if (rest <= 0 || others <= 0) return known;
  return known - rest * Math.log(rest / others);
}
