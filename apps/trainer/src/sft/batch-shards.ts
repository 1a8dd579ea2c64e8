/**
 * Splits a batch into at most `count` non-empty shards of about equal padded size, for data-parallel gradients.
 * Each shard is padded to its longest sequence, so its cost is about rows x longest length: the items are sorted
 * by length and cut into contiguous runs, with the cut points that minimise the largest shard's rows x longest
 * (exact, by dynamic programming over the cut points; batches are small). Fewer items than `count` give one
 * shard per item.
 */
export function balancedShards<T>(items: readonly T[], length: (item: T) => number, count: number): T[][] {
  if (!Number.isInteger(count) || count < 1) {
    throw new RangeError(`balancedShards: count must be a positive integer, got ${count}`);
  }
  const sorted = items
    .map((item, index) => ({ item, index, length: length(item) }))
    .sort((a, b) => a.length - b.length || a.index - b.index);
  const n = sorted.length;
  const shards = Math.min(count, n);
  if (shards <= 1) return n === 0 ? [] : [sorted.map((entry) => entry.item)];
  // Ascending lengths: the run [start, end) pads to the length of its last item.
  const cost = (start: number, end: number) => (end - start) * sorted[end - 1]!.length;
  // best[s][end]: the smallest possible largest cost when the first `end` items form s + 1 shards.
  const best = Array.from({ length: shards }, () => new Float64Array(n + 1).fill(Number.POSITIVE_INFINITY));
  const cut = Array.from({ length: shards }, () => new Int32Array(n + 1));
  for (let end = 1; end <= n; end++) best[0]![end] = cost(0, end);
  for (let s = 1; s < shards; s++) {
    for (let end = s + 1; end <= n; end++) {
      for (let start = s; start < end; start++) {
        const largest = Math.max(best[s - 1]![start]!, cost(start, end));
        if (largest < best[s]![end]!) {
          best[s]![end] = largest;
          cut[s]![end] = start;
        }
      }
    }
  }
  const result: T[][] = [];
  let end = n;
  for (let s = shards - 1; s >= 0; s--) {
    const start = s === 0 ? 0 : cut[s]![end]!;
    result.unshift(sorted.slice(start, end).map((entry) => entry.item));
    end = start;
  }
  return result;
}
