import { describe, expect, it } from 'vitest';
import { ALL_CORRECT, ALL_WRONG, answerDiscriminability, GROUP_TOO_SMALL } from '../src/index';

const t = (groupId: string | number, correct: boolean) => ({ groupId, correct, toolCalls: [] });

describe('answerDiscriminability (C2)', () => {
  it('drops groups with pass rate 0 or 1 and groups below minGroupSize, keeping the informative ones', () => {
    const batch = [
      t('mixed', true),
      t('wrong', false),
      t('mixed', false),
      t('right', true),
      t('wrong', false),
      t('right', true),
      t('alone', true),
      t('mixed', false),
    ];
    const result = answerDiscriminability().apply(batch);
    expect(result.keptIndices).toEqual([0, 2, 7]);
    expect(result.stats.dropped).toEqual({ [ALL_WRONG]: 2, [ALL_CORRECT]: 2, [GROUP_TOO_SMALL]: 1 });
    expect(result.stats.keptGroups).toBe(1);
    expect(result.stats.passRates!.groups).toEqual([
      { groupId: 'mixed', size: 3, correct: 1, passRate: 1 / 3, outcome: 'kept' },
      { groupId: 'wrong', size: 2, correct: 0, passRate: 0, outcome: ALL_WRONG },
      { groupId: 'right', size: 2, correct: 2, passRate: 1, outcome: ALL_CORRECT },
      { groupId: 'alone', size: 1, correct: 1, passRate: 1, outcome: GROUP_TOO_SMALL },
    ]);
    // Bins of width 0.1; rho = 1 lands in the last bin.
    expect(result.stats.passRates!.histogram).toEqual([1, 0, 0, 1, 0, 0, 0, 0, 0, 2]);
  });

  it('bins pass rates into the requested number of bins', () => {
    const batch = [t(1, true), t(1, false), t(1, false), t(1, false), t(2, true), t(2, true), t(2, false)];
    const { histogram } = answerDiscriminability({ histogramBins: 4 }).apply(batch).stats.passRates!;
    // rho = 0.25 -> bin 1 ([0.25, 0.5)), rho = 2/3 -> bin 2.
    expect(histogram).toEqual([0, 1, 1, 0]);
  });

  it('honours minGroupSize', () => {
    const batch = [t(1, true), t(1, false), t(2, true), t(2, false), t(2, false)];
    const result = answerDiscriminability({ minGroupSize: 3 }).apply(batch);
    expect(result.keptIndices).toEqual([2, 3, 4]);
    expect(answerDiscriminability({ minGroupSize: 1 }).apply([t(1, true)]).stats.dropped).toEqual({
      [ALL_CORRECT]: 1,
    });
  });

  it('falls back to reward > 0 when correct is absent, and rejects NaN rewards by index and field', () => {
    const batch = [
      { groupId: 1, reward: 0.7, toolCalls: [] },
      { groupId: 1, reward: -0.3, toolCalls: [] },
    ];
    expect(answerDiscriminability().apply(batch).keptIndices).toEqual([0, 1]);
    const bad = [batch[0]!, { groupId: 1, reward: Number.NaN, toolCalls: [] }];
    expect(() => answerDiscriminability().apply(bad)).toThrow(
      "trajectory 1: field 'reward' must be a finite number",
    );
    const nanWithVerdict = [t(1, true), { ...t(1, false), reward: Number.NaN }];
    expect(() => answerDiscriminability().apply(nanWithVerdict)).toThrow(/trajectory 1: field 'reward'/);
    expect(() => answerDiscriminability().apply([{ ...t(1, true), correct: 'yes' as never }])).toThrow(
      /trajectory 0: field 'correct' must be a boolean/,
    );
    expect(() => answerDiscriminability().apply([{ groupId: 1, toolCalls: [] }])).toThrow(
      /trajectory 0: needs a numeric 'reward' or a boolean 'correct'/,
    );
  });

  it('rejects a group id that is neither string nor number', () => {
    expect(() =>
      answerDiscriminability().apply([t(1, true), { ...t(1, true), groupId: null as never }]),
    ).toThrow(/trajectory 1: field 'groupId'/);
  });

  it('returns empty results when every group is degenerate', () => {
    const result = answerDiscriminability().apply([t(1, true), t(1, true), t(2, false), t(3, false)]);
    expect(result.kept).toEqual([]);
    expect(result.stats.keptGroups).toBe(0);
    expect(answerDiscriminability().apply([]).stats.passRates!.groups).toEqual([]);
  });

  it('validates its options', () => {
    expect(() => answerDiscriminability({ minGroupSize: 0 })).toThrow(
      /'minGroupSize' must be an integer >= 1/,
    );
    expect(() => answerDiscriminability({ histogramBins: 2.5 })).toThrow(/'histogramBins'/);
  });
});
