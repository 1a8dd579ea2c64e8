import { describe, expect, it } from 'vitest';
import { ALL_TOOL_CALLS_FAILED, ALL_WRONG, toolAwareFilter } from '../src/index';
import { freezeBatch, snapshot } from './random';

const ok = [{ status: 'ok' }];
const failed = [{ status: 'error' }];
const make = (groupId: string, correct: boolean, toolCalls: { status: string }[]) => ({
  groupId,
  correct,
  toolCalls,
  lossMask: Uint8Array.from([1, 0, 1]),
});

describe('toolAwareFilter (C1 then C2)', () => {
  it('computes pass rates over the survivors of C1', () => {
    // Group g: the only correct answer came from a trajectory whose tool calls all failed. C2 alone would keep
    // the group (rho = 1/3); after C1 it is all-wrong.
    const batch = freezeBatch([
      make('g', true, failed),
      make('g', false, ok),
      make('g', false, ok),
      make('h', true, ok),
      make('h', false, []),
    ]);
    const result = toolAwareFilter().apply(batch);
    expect(result.keptIndices).toEqual([3, 4]);
    expect(result.dropped.map((d) => [d.index, d.filter, d.reason])).toEqual([
      [0, 'execution-validity', ALL_TOOL_CALLS_FAILED],
      [1, 'answer-discriminability', ALL_WRONG],
      [2, 'answer-discriminability', ALL_WRONG],
    ]);
    expect(result.stats).toMatchObject({
      filter: 'tool-aware',
      input: 5,
      inputGroups: 2,
      kept: 2,
      keptGroups: 1,
      dropped: { [ALL_TOOL_CALLS_FAILED]: 1, [ALL_WRONG]: 2 },
    });
    expect(result.stats.stages.map((s) => [s.filter, s.input, s.kept])).toEqual([
      ['execution-validity', 5, 4],
      ['answer-discriminability', 4, 2],
    ]);
    expect(result.stats.passRates!.groups.map((g) => [g.groupId, g.passRate])).toEqual([
      ['g', 0],
      ['h', 0.5],
    ]);
  });

  it('in mask mode keeps the masked trajectory, and its reward, in its group', () => {
    const batch = freezeBatch([make('g', true, failed), make('g', false, ok), make('g', false, ok)]);
    const before = snapshot(batch);
    const result = toolAwareFilter({ mode: 'mask' }).apply(batch);
    expect(result.keptIndices).toEqual([0, 1, 2]);
    expect(Array.from(result.kept[0]!.lossMask!)).toEqual([0, 0, 0]);
    expect(result.masked).toEqual([
      { index: 0, filter: 'execution-validity', reason: ALL_TOOL_CALLS_FAILED },
    ]);
    expect(result.stats.passRates!.groups[0]!.passRate).toBeCloseTo(1 / 3, 15);
    expect(snapshot(batch)).toBe(before);
  });

  it('reports the caller object for a trajectory masked by C1 and then dropped by C2', () => {
    const batch = freezeBatch([make('g', false, failed), make('g', false, ok)]);
    const result = toolAwareFilter({ mode: 'mask' }).apply(batch);
    expect(result.kept).toEqual([]);
    expect(result.dropped.map((d) => d.item)).toEqual([batch[0], batch[1]]);
    expect(result.dropped[0]!.item).toBe(batch[0]);
    expect(result.masked.map((m) => m.index)).toEqual([0]);
  });

  it('passes its options to both stages and rejects unknown ones', () => {
    const batch = [make('g', true, []), make('g', false, ok)];
    expect(toolAwareFilter({ noToolCalls: 'reject', minGroupSize: 1 }).apply(batch).keptIndices).toEqual([]);
    expect(toolAwareFilter({ minGroupSize: 3 }).apply(batch).keptIndices).toEqual([]);
    expect(toolAwareFilter().apply(batch).keptIndices).toEqual([0, 1]);
    expect(() => toolAwareFilter({ minGroupsize: 3 } as never)).toThrow(
      /tool-aware: unknown option 'minGroupsize'/,
    );
  });

  it('handles an empty batch and a batch where every group is degenerate', () => {
    expect(toolAwareFilter().apply([]).stats).toMatchObject({ input: 0, kept: 0, keptGroups: 0 });
    const result = toolAwareFilter().apply([
      make('a', true, ok),
      make('a', true, ok),
      make('b', false, failed),
    ]);
    expect(result.kept).toEqual([]);
    expect(result.dropped).toHaveLength(3);
  });
});
