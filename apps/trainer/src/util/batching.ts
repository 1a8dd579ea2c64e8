import { deriveSeed, permutation } from './seeds.js';

/**
 * Position k of an endless stream of seeded epoch permutations of 0..n-1: every item once per epoch, the order of
 * epoch e drawn from (seed, purpose, e). Position k depends only on k, so a resumed run reads the same stream.
 */
export function epochStream(n: number, seed: number, purpose: string): (position: number) => number {
  if (!(Number.isInteger(n) && n > 0)) throw new Error(`epochStream: need at least one item, got ${n}`);
  const orders = new Map<number, number[]>();
  return (position) => {
    const epoch = Math.floor(position / n);
    let order = orders.get(epoch);
    if (order === undefined) {
      order = permutation(n, deriveSeed(seed, purpose, epoch));
      orders.set(epoch, order);
    }
    return order[position % n]!;
  };
}

/** Consecutive batches of the stream: batch b holds positions [b * batchSize, (b + 1) * batchSize). */
export function streamBatches(
  stream: (position: number) => number,
  batchSize: number,
): (batch: number) => number[] {
  return (batch) => Array.from({ length: batchSize }, (_, j) => stream(batch * batchSize + j));
}

/**
 * Length-grouped batching (the group_by_length of Hugging Face's Trainer): every `groupBatches` consecutive
 * batches take their items from one stretch of the stream, sorted by length and cut into batches served in a
 * seeded order. Padding to the longest sequence of a batch then wastes little, while each epoch still sees every
 * item once. Returns the item indices of batch b.
 *
 * With `shortShare` > 0, that share of every batch is drawn (seeded) from the shortest items of the stretch and
 * the rest is a contiguous run of the longer ones. Short items pad to their batch's width, but no batch is made of
 * the shortest items only: when length tells strategies apart (direct answers are short), pure length grouping
 * serves batches of one strategy, and each such batch tilts the policy towards it.
 */
export function lengthGroupedBatches(
  stream: (position: number) => number,
  lengthOf: (item: number) => number,
  batchSize: number,
  groupBatches: number,
  seed: number,
  shortShare = 0,
): (batch: number) => number[] {
  if (!(shortShare >= 0 && shortShare < 1))
    throw new RangeError(`lengthGroupedBatches: shortShare must be in [0, 1), got ${shortShare}`);
  const groups = new Map<number, number[][]>();
  const shortPerBatch = Math.round(shortShare * batchSize);
  const longPerBatch = batchSize - shortPerBatch;
  return (batch) => {
    const group = Math.floor(batch / groupBatches);
    let batches = groups.get(group);
    if (batches === undefined) {
      const start = group * groupBatches * batchSize;
      const items = Array.from({ length: groupBatches * batchSize }, (_, j) => stream(start + j));
      items.sort((a, b) => lengthOf(a) - lengthOf(b) || a - b);
      const shortest = items.slice(0, shortPerBatch * groupBatches);
      const dealt = permutation(shortest.length, deriveSeed(seed, 'short-items', group)).map(
        (j) => shortest[j]!,
      );
      const longer = items.slice(shortest.length);
      const sorted = Array.from({ length: groupBatches }, (_, j) => [
        ...longer.slice(j * longPerBatch, (j + 1) * longPerBatch),
        ...dealt.slice(j * shortPerBatch, (j + 1) * shortPerBatch),
      ]);
      batches = permutation(groupBatches, deriveSeed(seed, 'length-groups', group)).map((j) => sorted[j]!);
      groups.clear();
      groups.set(group, batches);
    }
    return batches[batch % groupBatches]!;
  };
}
