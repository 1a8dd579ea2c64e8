import { describe, expect, it } from 'vitest';
import { padRows } from '../src/padded-rows.js';

describe('padRows', () => {
  it('lays rows out right-padded, or from each row start, keeping the fill elsewhere', () => {
    const rows = [Int32Array.of(1, 2, 3), Int32Array.of(4)];
    expect([...padRows(new Int32Array(8).fill(-1), 4, rows)]).toEqual([1, 2, 3, -1, 4, -1, -1, -1]);
    expect([...padRows(new Int32Array(8), 4, rows, [1, 3])]).toEqual([0, 1, 2, 3, 0, 0, 0, 4]);
    // Values convert to the array's type, as TypedArray.set does (a loss mask into float weights).
    expect([...padRows(new Float32Array(4), 2, [Uint8Array.of(1, 0), Uint8Array.of(1)])]).toEqual([
      1, 0, 1, 0,
    ]);
  });

  it('refuses a row that would spill into the next one, naming it', () => {
    expect(() => padRows(new Int32Array(8), 4, [Int32Array.of(1), Int32Array.of(1, 2)], [0, 3])).toThrow(
      'padRows: row 1 has 2 values from column 3, past the 4 columns',
    );
  });
});
