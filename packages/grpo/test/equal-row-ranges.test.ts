import { describe, expect, it } from 'vitest';
import { equalRowRanges } from '../src/update/update-batch';

describe('equalRowRanges', () => {
  it('splits into the fewest parts within the bound, larger parts first', () => {
    expect(equalRowRanges(46, 32)).toEqual([
      { start: 0, rows: 23 },
      { start: 23, rows: 23 },
    ]);
    expect(equalRowRanges(5, 4)).toEqual([
      { start: 0, rows: 3 },
      { start: 3, rows: 2 },
    ]);
    expect(equalRowRanges(7, 7)).toEqual([{ start: 0, rows: 7 }]);
    expect(equalRowRanges(3, 1).map((part) => part.rows)).toEqual([1, 1, 1]);
  });

  it('covers every row once, in order, with sizes that differ by at most one', () => {
    for (let rows = 1; rows <= 70; rows++) {
      for (let maxRows = 1; maxRows <= 40; maxRows++) {
        const parts = equalRowRanges(rows, maxRows);
        expect(parts.length).toBe(Math.ceil(rows / maxRows));
        let next = 0;
        for (const part of parts) {
          expect(part.start).toBe(next);
          expect(part.rows).toBeLessThanOrEqual(maxRows);
          next += part.rows;
        }
        expect(next).toBe(rows);
        const sizes = parts.map((part) => part.rows);
        expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
      }
    }
  });
});
