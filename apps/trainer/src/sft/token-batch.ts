import type { SftExample } from '@taorl/data';
import type { WeightedTokenBatch } from '@taorl/model';
import { padRows } from '@taorl/model';

/** Tokens with lossMask 1 that the model predicts (every position but the first). */
export function lossTokenCount(examples: readonly SftExample[]): number {
  let tokens = 0;
  for (const example of examples)
    for (let t = 1; t < example.lossMask.length; t++) tokens += example.lossMask[t]!;
  return tokens;
}

/**
 * Examples as a target-aligned batch whose weights divide by `totalLossTokens`, the loss tokens of the whole
 * step's batch: a shard's weighted loss is then its share of the full batch's token-mean loss, and the shards'
 * gradients add up to the full batch's gradient (the token-mean weights of @taorl/grpo's aggregationWeights,
 * computed once for the whole batch).
 */
export function weightedTokenBatch(
  examples: readonly SftExample[],
  padId: number,
  totalLossTokens: number,
): WeightedTokenBatch {
  const width = Math.max(...examples.map((s) => s.inputIds.length)) - 1;
  const size = examples.length * width;
  // Column t predicts token t + 1: inputs drop each sequence's last token, targets and mask its first.
  const inputs = padRows(
    new Int32Array(size).fill(padId),
    width,
    examples.map((s) => s.inputIds.subarray(0, s.inputIds.length - 1)),
  );
  const targets = padRows(
    new Int32Array(size).fill(padId),
    width,
    examples.map((s) => s.inputIds.subarray(1)),
  );
  const mask = padRows(
    new Float32Array(size),
    width,
    examples.map((s) => s.lossMask.subarray(1, s.inputIds.length)),
  );
  const weights = mask.map((m) => (totalLossTokens === 0 ? 0 : m / totalLossTokens));
  return { inputs, targets, mask, weights, shape: [examples.length, width] };
}
