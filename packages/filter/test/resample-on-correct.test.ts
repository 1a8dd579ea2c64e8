import { seededRandom } from '@taorl/eval';
import { describe, expect, it } from 'vitest';
import {
  composeFilters,
  getFilter,
  resampleOnCorrect,
  SURPLUS_CORRECT,
  SURPLUS_WRONG,
  toolAwareFilter,
} from '../src/index';

interface Rollout {
  groupId: string;
  correct: boolean;
  toolCalls: { status: string }[];
  answerCount: number;
  turnCount: number;
  lossMask: Uint8Array;
}

/**
 * rStar2-Agent's resample_of_correct, re-stated from microsoft/rStar@73b21b5 rstar2_agent/down_sample/roc.py for
 * one group given as a list: error ratio (0.5 without calls) + format penalty, Python's round (halves to even),
 * the minimum adjustments, both sides sorted by penalty (stable). Returns the kept positions, sorted.
 */
function rocReference(group: Rollout[], size: number, minWrong: number, minCorrect: number): number[] {
  const pyRound = (x: number) => {
    const f = Math.floor(x);
    return x - f === 0.5 ? (f % 2 === 0 ? f : f + 1) : Math.round(x);
  };
  const penalty = (r: Rollout) => {
    const calls = r.toolCalls.length;
    const error = calls === 0 ? 0.5 : r.toolCalls.filter((c) => c.status !== 'ok').length / calls;
    const format =
      r.answerCount === 0 || r.turnCount === 0 ? 1 : Math.min((r.answerCount - 1) / r.turnCount, 1);
    return error + format;
  };
  if (group.length <= size) return group.map((_, i) => i);
  const pairs = group.map((r, i) => [i, penalty(r), r.correct] as const);
  const zero = pairs.filter((p) => !p[2]).sort((a, b) => a[1] - b[1]);
  const nonZero = pairs.filter((p) => p[2]).sort((a, b) => a[1] - b[1]);
  let zeroNum = pyRound((zero.length * size) / group.length);
  let nonZeroNum = pyRound((nonZero.length * size) / group.length);
  if (zeroNum <= Math.min(minWrong, zero.length)) {
    zeroNum = Math.min(minWrong, zero.length);
    nonZeroNum = size - zeroNum;
  }
  if (nonZeroNum <= Math.min(minCorrect, nonZero.length)) {
    nonZeroNum = Math.min(minCorrect, nonZero.length);
    zeroNum = size - nonZeroNum;
  }
  if (zeroNum + nonZeroNum !== size) {
    // taorl's DECISION where the source's assertion would fail: the right side takes the difference.
    nonZeroNum = Math.max(0, Math.min(size - zeroNum, nonZero.length));
    zeroNum = size - nonZeroNum;
  }
  const choices = [...nonZero.slice(0, nonZeroNum), ...zero.slice(0, zeroNum)].map((p) => p[0]);
  expect(choices).toHaveLength(size);
  return choices.sort((a, b) => a - b);
}

const rollout = (
  groupId: string,
  correct: boolean,
  statuses: string[],
  answerCount = 1,
  turnCount = 2,
): Rollout => ({
  groupId,
  correct,
  toolCalls: statuses.map((status) => ({ status })),
  answerCount,
  turnCount,
  lossMask: Uint8Array.from([1, 1]),
});

describe('resample-on-correct (rStar2-Agent GRPO-RoC)', () => {
  it('keeps the right answers with the fewest tool errors and format issues, in proportion', () => {
    // 8 rollouts to 4: 5 right, 3 wrong -> round(2.5) = 2 right, round(1.5) = 2 wrong (halves to even).
    const group = [
      rollout('q', true, ['error', 'ok']), // penalty 0.5
      rollout('q', true, ['ok', 'ok']), // 0
      rollout('q', true, []), // 0.5 (no call)
      rollout('q', true, ['ok'], 3, 2), // 0 + min(2 / 2, 1) = 1
      rollout('q', true, ['ok', 'ok', 'error']), // 1/3
      rollout('q', false, ['error']), // 1
      rollout('q', false, ['ok'], 0), // 0 + 1 (no answer)
      rollout('q', false, ['ok']), // 0
    ];
    const result = resampleOnCorrect({ size: 4 }).apply(group);
    expect(result.keptIndices).toEqual([1, 4, 5, 7]);
    expect(result.keptIndices).toEqual(rocReference(group, 4, 2, 2));
    expect(result.resampled.map((r) => [r.index, r.reason])).toEqual([
      [0, SURPLUS_CORRECT],
      [2, SURPLUS_CORRECT],
      [3, SURPLUS_CORRECT],
      [6, SURPLUS_WRONG],
    ]);
    expect(result.stats.resampled).toEqual({ [SURPLUS_CORRECT]: 3, [SURPLUS_WRONG]: 1 });
    expect(result.stats.dropped).toEqual({});
    expect(result.dropped).toEqual([]);
  });

  it('raises a side to its minimum: one right answer among 16 is kept when 16 go to 8', () => {
    const group = Array.from({ length: 16 }, (_, i) => rollout('q', i === 9, ['ok']));
    const kept = resampleOnCorrect({ size: 8 }).apply(group).keptIndices;
    expect(kept).toContain(9);
    expect(kept).toEqual(rocReference(group, 8, 2, 2));
  });

  it('matches the reference on random groups, penalties switched on and off', () => {
    const random = seededRandom(2508);
    const statuses = ['ok', 'ok', 'error', 'timeout'];
    for (let trial = 0; trial < 300; trial++) {
      const n = 2 + Math.floor(random() * 15);
      const size = 1 + Math.floor(random() * (n - 1));
      const minWrong = Math.floor(random() * (size + 1));
      const minCorrect = Math.floor(random() * (size - minWrong + 1));
      const group = Array.from({ length: n }, () =>
        rollout(
          'q',
          random() < 0.5,
          Array.from({ length: Math.floor(random() * 4) }, () => statuses[Math.floor(random() * 4)]!),
          Math.floor(random() * 4),
          1 + Math.floor(random() * 3),
        ),
      );
      const kept = resampleOnCorrect({ size, minWrong, minCorrect }).apply(group).keptIndices;
      expect(kept, `trial ${trial}: n ${n} size ${size} min ${minWrong}/${minCorrect}`).toEqual(
        rocReference(group, size, minWrong, minCorrect),
      );
      expect(kept).toHaveLength(size);
    }
  });

  it('works group by group and keeps groups that are not larger than size', () => {
    const batch = [
      rollout('a', true, ['ok']),
      rollout('b', true, ['error']),
      rollout('a', false, ['ok']),
      rollout('b', false, ['ok']),
      rollout('a', true, ['error']),
      rollout('b', true, ['ok']),
    ];
    const result = resampleOnCorrect({ size: 2, minWrong: 1, minCorrect: 1 }).apply(batch);
    // a: 2 right (0, 4), 1 wrong -> 1 right (the one without error) + 1 wrong.
    expect(result.keptIndices).toEqual([0, 2, 3, 5]);
    expect(resampleOnCorrect({ size: 3, minWrong: 1, minCorrect: 1 }).apply(batch).keptIndices).toEqual([
      0, 1, 2, 3, 4, 5,
    ]);
  });

  it('keeps size where two halves round the same way (the source would fail its assertion)', () => {
    // 2 right, 2 wrong to 3: round(1.5) = 2 on both sides; the right side gives one back.
    const group = [
      rollout('q', true, ['ok']),
      rollout('q', true, ['error']),
      rollout('q', false, ['ok']),
      rollout('q', false, ['error']),
    ];
    const result = resampleOnCorrect({ size: 3, minWrong: 0, minCorrect: 0 }).apply(group);
    expect(result.keptIndices).toEqual([0, 2, 3]);
    expect(result.stats.resampled).toEqual({ [SURPLUS_CORRECT]: 1 });
  });

  it('switches the penalties off on request and then needs no answer counts', () => {
    const group = [
      { groupId: 'q', correct: true, toolCalls: [{ status: 'error' }] },
      { groupId: 'q', correct: true, toolCalls: [{ status: 'ok' }] },
      { groupId: 'q', correct: true, toolCalls: [{ status: 'ok' }] },
    ];
    expect(resampleOnCorrect({ size: 2, minWrong: 0, answerFormat: false }).apply(group).keptIndices).toEqual(
      [1, 2],
    );
    expect(() => resampleOnCorrect({ size: 2, minWrong: 0 }).apply(group)).toThrow(
      /trajectory 0: field 'answerCount' must be an integer >= 0/,
    );
    const plain = resampleOnCorrect({ size: 2, minWrong: 0, errorRatio: false, answerFormat: false });
    expect(plain.apply(group).keptIndices).toEqual([0, 1]);
  });

  it('names the option of bad settings', () => {
    expect(() => resampleOnCorrect()).toThrow(/option 'size' .* is required/);
    expect(() => resampleOnCorrect({ size: 0 })).toThrow(/option 'size' must be an integer >= 1/);
    expect(() => resampleOnCorrect({ size: 3 })).toThrow(
      /options 'minWrong' \+ 'minCorrect' \(2 \+ 2\) must not exceed 'size' \(3\)/,
    );
    expect(() => getFilter('resample-on-correct', { size: 4, keep: 2 })).toThrow(/unknown option 'keep'/);
    expect(() => resampleOnCorrect({ size: 4, errorRatio: 'yes' as never })).toThrow(/option 'errorRatio'/);
  });

  it('composes: resampled trajectories are reported apart from dropped ones', () => {
    const batch = [
      rollout('q', true, ['ok']),
      rollout('q', true, ['error']),
      rollout('q', false, ['ok']),
      rollout('q', false, ['ok']),
      rollout('r', true, ['ok']),
      rollout('r', true, ['ok']),
    ];
    const result = composeFilters(
      resampleOnCorrect({ size: 2, minWrong: 1, minCorrect: 1 }),
      toolAwareFilter(),
    ).apply(batch);
    expect(result.stats.resampled).toEqual({ [SURPLUS_CORRECT]: 1, [SURPLUS_WRONG]: 1 });
    expect(result.stats.dropped).toEqual({ 'all-correct': 2 });
    expect(result.keptIndices).toEqual([0, 2]);
    expect(result.resampled.map((r) => r.item)).toEqual([batch[1], batch[3]]);
  });
});
