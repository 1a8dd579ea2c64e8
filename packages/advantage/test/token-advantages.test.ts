import { describe, expect, it } from 'vitest';
import { tokenAdvantages } from '../src/index';

const batch = [
  { lossMask: Uint8Array.from([1, 0, 1]) },
  { lossMask: new Uint8Array(0) },
  { lossMask: Uint8Array.from([0, 1]) },
];

describe('tokenAdvantages', () => {
  it('broadcasts each sequence advantage over its policy tokens into one packed buffer', () => {
    const result = tokenAdvantages(batch, [0.5, 9, -2]);
    expect(Array.from(result.packed!.offsets)).toEqual([0, 3, 3, 5]);
    expect(Array.from(result.packed!.data)).toEqual([0.5, 0, 0.5, 0, -2]);
    expect(result.perTrajectory.map((row) => Array.from(row))).toEqual([[0.5, 0, 0.5], [], [0, -2]]);
    expect(result.perTrajectory[2]!.buffer).toBe(result.packed!.data.buffer);
  });

  it('gives the same values in separate rows', () => {
    const result = tokenAdvantages(batch, [0.5, 9, -2], { layout: 'separate' });
    expect(result.packed).toBeNull();
    expect(result.perTrajectory.map((row) => Array.from(row))).toEqual([[0.5, 0, 0.5], [], [0, -2]]);
    expect(result.perTrajectory[0]!.buffer).not.toBe(result.perTrajectory[2]!.buffer);
  });

  it('stores float32 values of the float64 advantages', () => {
    const a = 1 / 3;
    expect(tokenAdvantages([{ lossMask: Uint8Array.of(1) }], [a]).perTrajectory[0]![0]).toBe(Math.fround(a));
  });

  it('rejects mismatched input by name', () => {
    expect(() => tokenAdvantages(batch, [1, 2])).toThrow(/advantages has 2 entries for a batch of 3/);
    expect(() => tokenAdvantages([{ lossMask: [1] as never }], [1])).toThrow(
      /trajectory 0: field 'lossMask'/,
    );
    expect(() => tokenAdvantages(batch, [1, Number.NaN, 2])).toThrow(/advantages\[1\] must be finite/);
    expect(() => tokenAdvantages(batch, [1, 2, 3], { layout: 'rows' as never })).toThrow(/layout must be/);
  });
});
