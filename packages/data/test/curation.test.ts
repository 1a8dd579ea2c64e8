import { describe, expect, it } from 'vitest';
import { curateByPassRate, groupTrajectories, passRates } from '../src/index';

describe('model-aware curation', () => {
  it('computes pass rates per question from graded samples', () => {
    const samples = [
      { groupId: 'a', correct: true },
      { groupId: 'b', correct: false },
      { groupId: 'a', correct: false },
      { groupId: 'a', correct: true },
      { groupId: 'b', correct: false },
      { groupId: 'c', correct: true },
    ];
    expect(passRates(groupTrajectories(samples))).toEqual([
      { id: 'a', passRate: 2 / 3, samples: 3 },
      { id: 'b', passRate: 0, samples: 2 },
      { id: 'c', passRate: 1, samples: 1 },
    ]);
  });

  it('keeps the open band (0, 1) by default and reports the histogram', () => {
    const rates = [0, 0, 0.125, 0.25, 0.5, 0.5, 0.875, 1, 1, 1].map((passRate, i) => ({
      id: `q${i}`,
      passRate,
    }));
    const report = curateByPassRate(rates, { bins: 4 });
    expect(report.kept.map((r) => r.passRate)).toEqual([0.125, 0.25, 0.5, 0.5, 0.875]);
    expect(report.dropped.map((r) => r.passRate)).toEqual([0, 0, 1, 1, 1]);
    expect(report.neverSolved).toBe(2);
    expect(report.alwaysSolved).toBe(3);
    // [0, .25): 0, 0, .125 | [.25, .5): .25 | [.5, .75): .5, .5 | [.75, 1]: .875, 1, 1, 1
    expect(report.histogram).toEqual([
      { lower: 0, upper: 0.25, count: 3 },
      { lower: 0.25, upper: 0.5, count: 1 },
      { lower: 0.5, upper: 0.75, count: 2 },
      { lower: 0.75, upper: 1, count: 4 },
    ]);
    const narrow = curateByPassRate(rates, { low: 0.2, high: 0.8 });
    expect(narrow.kept.map((r) => r.passRate)).toEqual([0.25, 0.5, 0.5]);
  });

  it('rejects bad bands and pass rates', () => {
    expect(() => curateByPassRate([], { low: 0.5, high: 0.5 })).toThrow('need 0 <= low < high <= 1');
    expect(() => curateByPassRate([{ passRate: 1.5 }])).toThrow('item 0 has passRate 1.5');
    expect(() => curateByPassRate([{ passRate: Number.NaN }])).toThrow('item 0 has passRate NaN');
  });
});
