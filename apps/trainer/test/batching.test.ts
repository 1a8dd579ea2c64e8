import { describe, expect, it } from 'vitest';
import { epochStream, lengthGroupedBatches, streamBatches } from '../src/util/batching.js';

describe('SFT batching', () => {
  it('serves every item once per epoch, in a seeded order that depends only on the position', () => {
    const stream = epochStream(10, 4, 'test');
    const epochs = [0, 1, 2].map((e) => Array.from({ length: 10 }, (_, k) => stream(e * 10 + k)));
    for (const epoch of epochs) expect([...epoch].sort((a, b) => a - b)).toEqual([...Array(10).keys()]);
    expect(epochs[0]).not.toEqual(epochs[1]);
    expect(epochStream(10, 4, 'test')(17)).toBe(stream(17));
  });

  it('plain batches are consecutive stretches of the stream, so short and long items mix', () => {
    const stream = epochStream(12, 5, 'sft');
    const batchAt = streamBatches(stream, 4);
    expect([0, 1, 2].flatMap(batchAt)).toEqual(Array.from({ length: 12 }, (_, k) => stream(k)));
    expect(batchAt(3)).toEqual([12, 13, 14, 15].map(stream));
  });

  it('groups similar lengths into batches without losing or repeating items, and pads less', () => {
    const lengths = Array.from({ length: 64 }, (_, i) => 20 + ((i * 37) % 200));
    const batchSize = 4;
    const stream = epochStream(64, 9, 'sft');
    const batchAt = lengthGroupedBatches(stream, (i) => lengths[i]!, batchSize, 8, 9);
    const batches = Array.from({ length: 16 }, (_, b) => batchAt(b));
    expect(batches.flat().sort((a, b) => a - b)).toEqual([...Array(64).keys()]);
    const padded = (groups: number[][]) =>
      groups.reduce((sum, batch) => sum + batch.length * Math.max(...batch.map((i) => lengths[i]!)), 0);
    const plain = Array.from({ length: 16 }, (_, b) => streamBatches(stream, batchSize)(b));
    expect(padded(batches)).toBeLessThan(padded(plain));
    // Within one group of 8 batches, the batches are contiguous ranges of the sorted lengths.
    const spans = batches.slice(0, 8).map((batch) => {
      const ls = batch.map((i) => lengths[i]!);
      return [Math.min(...ls), Math.max(...ls)] as const;
    });
    spans.sort((a, b) => a[0] - b[0]);
    for (let j = 1; j < spans.length; j++) expect(spans[j]![0]).toBeGreaterThanOrEqual(spans[j - 1]![1]);
    expect(lengthGroupedBatches(stream, (i) => lengths[i]!, batchSize, 8, 9)(5)).toEqual(batches[5]);
  });

  it('mixed-length batches spread the shortest items over every batch and still pad less than random ones', () => {
    // A fifth of the items are short (direct answers), the rest long: pure grouping gives them batches of their own.
    const lengths = Array.from({ length: 192 }, (_, i) =>
      i % 5 === 0 ? 30 + (i % 7) : 100 + ((i * 37) % 120),
    );
    const isShort = (i: number) => lengths[i]! < 50;
    const stream = epochStream(192, 3, 'sft');
    const take = (batchAt: (b: number) => number[]) => Array.from({ length: 24 }, (_, b) => batchAt(b));
    const pure = take(lengthGroupedBatches(stream, (i) => lengths[i]!, 8, 8, 3));
    const mixed = take(lengthGroupedBatches(stream, (i) => lengths[i]!, 8, 8, 3, 0.25));
    const random = take(streamBatches(stream, 8));
    expect(mixed.flat().sort((a, b) => a - b)).toEqual([...Array(192).keys()]);
    expect(pure.some((batch) => batch.every(isShort))).toBe(true);
    expect(mixed.some((batch) => batch.every(isShort))).toBe(false);
    // Each batch holds 2 (= 0.25 x 8) of its group's 16 shortest items and 6 of the longer ones.
    for (let g = 0; g < 24; g += 8) {
      const group = mixed.slice(g, g + 8);
      const sorted = group.flat().sort((a, b) => lengths[a]! - lengths[b]! || a - b);
      const quarter = new Set(sorted.slice(0, 16));
      for (const batch of group) expect(batch.filter((i) => quarter.has(i))).toHaveLength(2);
    }
    const padded = (batches: number[][]) =>
      batches.reduce((sum, batch) => sum + batch.length * Math.max(...batch.map((i) => lengths[i]!)), 0);
    expect(padded(mixed)).toBeLessThan(padded(random));
    expect(padded(pure)).toBeLessThanOrEqual(padded(mixed));
    expect(() => lengthGroupedBatches(stream, (i) => lengths[i]!, 4, 8, 3, 1)).toThrow(/shortShare/);
  });
});
