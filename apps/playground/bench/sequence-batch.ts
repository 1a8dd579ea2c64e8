import type { WeightedTokenBatch } from '@taorl/model';
import { lossTokenCount, weightedTokenBatch } from '@taorl/trainer';
import type { PlainTokenBatch } from '../src/model-panel';

/**
 * Prompts and their sampled completions as a training batch, as the trainer's SFT batches them
 * (`weightedTokenBatch`): the loss on the completion tokens, token-mean over the batch.
 */
export function sequenceBatch(
  prompts: readonly Int32Array[],
  completions: readonly { tokens: readonly number[] }[],
  padId: number,
): WeightedTokenBatch {
  const examples = prompts.map((prompt, i) => {
    const completion = completions[i]?.tokens ?? [];
    const lossMask = new Uint8Array(prompt.length + completion.length);
    lossMask.fill(1, prompt.length);
    return { inputIds: Int32Array.from([...prompt, ...completion]), lossMask };
  });
  return weightedTokenBatch(examples, padId, lossTokenCount(examples));
}

/** A batch as plain arrays, to pass into a page (Playwright's evaluate takes JSON-like values). */
export function plainBatch(batch: WeightedTokenBatch): PlainTokenBatch {
  return {
    inputs: [...batch.inputs],
    targets: [...batch.targets],
    mask: [...batch.mask],
    weights: [...batch.weights],
    shape: batch.shape,
  };
}
