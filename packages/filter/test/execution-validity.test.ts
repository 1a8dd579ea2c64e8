import { describe, expect, it } from 'vitest';
import {
  ALL_TOOL_CALLS_FAILED,
  executionValidity,
  getFilter,
  NO_TOOL_CALLS,
  TOOL_OUTAGE,
  toolOutage,
} from '../src/index';
import { freezeBatch, snapshot } from './random';

const mask = () => Uint8Array.from([1, 1, 0, 1]);
const batch = () =>
  freezeBatch([
    {
      groupId: 'a',
      correct: true,
      toolCalls: [{ status: 'error' }, { status: 'timeout' }],
      lossMask: mask(),
    },
    { groupId: 'a', correct: false, toolCalls: [{ status: 'error' }, { status: 'ok' }], lossMask: mask() },
    { groupId: 'a', correct: true, toolCalls: [], lossMask: mask() },
    { groupId: 'b', correct: false, toolCalls: [{ status: 'sandbox_error' }], lossMask: mask() },
  ]);

describe('executionValidity (C1)', () => {
  it('drops trajectories whose every tool call failed, keeps one success and no-call trajectories', () => {
    const input = batch();
    const result = executionValidity().apply(input);
    expect(result.keptIndices).toEqual([1, 2]);
    expect(result.kept[0]).toBe(input[1]);
    expect(result.dropped.map((d) => [d.index, d.reason, d.filter])).toEqual([
      [0, ALL_TOOL_CALLS_FAILED, 'execution-validity'],
      [3, TOOL_OUTAGE, 'execution-validity'],
    ]);
    expect(result.dropped[0]!.item).toBe(input[0]);
    expect(result.stats).toMatchObject({
      input: 4,
      inputGroups: 2,
      kept: 2,
      keptGroups: 1,
      dropped: { [ALL_TOOL_CALLS_FAILED]: 1, [TOOL_OUTAGE]: 1 },
      masked: {},
    });
  });

  it('rejects trajectories without tool calls when asked', () => {
    const result = executionValidity({ noToolCalls: 'reject' }).apply(batch());
    expect(result.keptIndices).toEqual([1]);
    expect(result.stats.dropped).toEqual({
      [ALL_TOOL_CALLS_FAILED]: 1,
      [TOOL_OUTAGE]: 1,
      [NO_TOOL_CALLS]: 1,
    });
  });

  it('mask mode keeps invalid trajectories in place with a zero loss mask and leaves the inputs alone', () => {
    const input = batch();
    const before = snapshot(input);
    const result = executionValidity({ mode: 'mask' }).apply(input);
    expect(result.keptIndices).toEqual([0, 1, 2]);
    // An outage is dropped even in mask mode: its reward would still move the group's baseline.
    expect(result.dropped.map((d) => [d.index, d.reason])).toEqual([[3, TOOL_OUTAGE]]);
    expect(result.masked).toEqual([
      { index: 0, filter: 'execution-validity', reason: ALL_TOOL_CALLS_FAILED },
    ]);
    expect(Array.from(result.kept[0]!.lossMask!)).toEqual([0, 0, 0, 0]);
    expect(result.kept[0]).not.toBe(input[0]);
    expect(result.kept[0]!.correct).toBe(true);
    expect(result.kept[1]).toBe(input[1]);
    expect(snapshot(input)).toBe(before);
    expect(result.stats.masked).toEqual({ [ALL_TOOL_CALLS_FAILED]: 1 });
  });

  it('names the trajectory that has no loss mask to zero in mask mode', () => {
    const input = [{ groupId: 1, correct: true, toolCalls: [{ status: 'error' }] }];
    expect(() => executionValidity({ mode: 'mask' }).apply(input)).toThrow(
      /trajectory 0 has no Uint8Array 'lossMask'/,
    );
  });

  it('rejects unknown or malformed options by name', () => {
    expect(() => executionValidity({ mdoe: 'mask' } as never)).toThrow(/unknown option 'mdoe'/);
    expect(() => executionValidity({ mode: 'zero' as never })).toThrow(
      /option 'mode' must be 'drop' or 'mask'/,
    );
    expect(() => executionValidity({ noToolCalls: 'drop' as never })).toThrow(/option 'noToolCalls'/);
  });

  it('reports a missing toolCalls field with the trajectory index', () => {
    const input = [{ groupId: 1, correct: true, toolCalls: [] }, { groupId: 1, correct: true } as never];
    expect(() => executionValidity().apply(input)).toThrow(
      /trajectory 1: field 'toolCalls' must be an array/,
    );
  });

  it('returns an empty result for an empty batch', () => {
    const result = executionValidity().apply([]);
    expect(result.kept).toEqual([]);
    expect(result.stats).toMatchObject({ input: 0, kept: 0, inputGroups: 0, keptGroups: 0 });
  });
});

describe('tool outages (calls that failed in the sandbox itself)', () => {
  const outage = (calls: string[], correct: boolean) => ({
    groupId: 'q',
    correct,
    toolCalls: calls.map((status) => ({ status })),
    lossMask: mask(),
  });

  it("C1 never counts an outage as the model's failed call: an outage beside a success or a failure is dropped as tool-outage", () => {
    const input = freezeBatch([
      outage(['sandbox_error', 'ok'], true),
      outage(['error', 'sandbox_error'], false),
      outage(['error'], false),
      outage(['ok'], false),
    ]);
    const result = executionValidity().apply(input);
    expect(result.keptIndices).toEqual([3]);
    expect(result.dropped.map((d) => [d.index, d.reason])).toEqual([
      [0, TOOL_OUTAGE],
      [1, TOOL_OUTAGE],
      [2, ALL_TOOL_CALLS_FAILED],
    ]);
  });

  it('toolOutage drops every trajectory with an outage and nothing else, by name from the registry too', () => {
    const input = freezeBatch([
      outage(['sandbox_error'], false),
      outage(['error', 'timeout'], false),
      outage([], true),
      outage(['ok', 'sandbox_error'], true),
    ]);
    for (const filter of [toolOutage(), getFilter('tool-outage')]) {
      const result = filter.apply(input);
      expect(result.keptIndices).toEqual([1, 2]);
      expect(result.stats.dropped).toEqual({ [TOOL_OUTAGE]: 2 });
      expect(result.dropped.every((d) => d.filter === 'tool-outage')).toBe(true);
    }
    expect(() => getFilter('tool-outage', { mode: 'mask' })).toThrow(/unknown option 'mode'/);
  });
});
