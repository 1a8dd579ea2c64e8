import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  composeFilters,
  dynamicSampling,
  executionValidity,
  type Filter,
  filterNames,
  getFilter,
  overlongFilter,
  registerFilter,
  TRUNCATED,
  trajectoryFilter,
  VOID_TURN,
  voidTurn,
  ZERO_STD,
} from '../src/index';

const t = (groupId: number, reward: number, extra: object = {}) => ({
  groupId,
  reward,
  toolCalls: [{ status: 'ok' }],
  lossMask: Uint8Array.from([1, 1]),
  ...extra,
});

describe('dynamicSampling (DAPO)', () => {
  it('drops groups whose rewards are all equal and keeps singletons by default', () => {
    const batch = [t(1, 0.5), t(1, 0.5), t(2, 1), t(2, 0.9), t(3, 1)];
    const result = dynamicSampling().apply(batch);
    expect(result.keptIndices).toEqual([2, 3, 4]);
    expect(result.stats.dropped).toEqual({ [ZERO_STD]: 2 });
    expect(dynamicSampling({ keepSingletons: false }).apply(batch).keptIndices).toEqual([2, 3]);
  });

  it('can look at correctness instead of reward', () => {
    // Rewards differ (overlong shaping) but both answers are correct: no accuracy spread.
    const batch = [t(1, 1, { correct: true }), t(1, 0.8, { correct: true })];
    expect(dynamicSampling().apply(batch).keptIndices).toEqual([0, 1]);
    expect(dynamicSampling({ metric: 'correct' }).apply(batch).keptIndices).toEqual([]);
  });

  it('rejects NaN rewards and bad options', () => {
    expect(() => dynamicSampling().apply([t(1, 1), t(1, Number.NaN)])).toThrow(
      /trajectory 1: field 'reward'/,
    );
    expect(() => dynamicSampling({ metric: 'acc' as never })).toThrow(/option 'metric'/);
    expect(() => dynamicSampling({ keepSingletons: 'yes' as never })).toThrow(/option 'keepSingletons'/);
  });
});

describe('voidTurn (SimpleTIR)', () => {
  it('masks trajectories with a void turn by default, or drops them', () => {
    const batch = [t(1, 1, { voidTurn: true }), t(1, 0)];
    const masked = voidTurn().apply(batch);
    expect(masked.keptIndices).toEqual([0, 1]);
    expect(Array.from(masked.kept[0]!.lossMask!)).toEqual([0, 0]);
    expect(masked.stats.masked).toEqual({ [VOID_TURN]: 1 });
    expect(voidTurn({ mode: 'drop' }).apply(batch).keptIndices).toEqual([1]);
  });

  it('accepts a custom detector', () => {
    const batch = [t(1, 1), t(1, 0)];
    expect(voidTurn({ mode: 'drop', isVoid: (x) => x.reward === 0 }).apply(batch).keptIndices).toEqual([0]);
  });
});

describe('overlongFilter (DAPO)', () => {
  it('masks truncated responses by default, or drops them', () => {
    const batch = [t(1, 1, { truncated: true }), t(1, 0, { truncated: false }), t(1, 0)];
    const masked = overlongFilter().apply(batch);
    expect(masked.masked).toEqual([{ index: 0, filter: 'overlong', reason: TRUNCATED }]);
    expect(Array.from(masked.kept[0]!.lossMask!)).toEqual([0, 0]);
    expect(overlongFilter({ mode: 'drop' }).apply(batch).keptIndices).toEqual([1, 2]);
    expect(() => overlongFilter({ mode: 'clip' as never })).toThrow(/overlong: option 'mode'/);
  });
});

describe('composeFilters', () => {
  it('reports positions in the original batch and sums counts per reason', () => {
    const batch = [
      t(1, 1, { toolCalls: [{ status: 'error' }] }),
      t(1, 1),
      t(1, 1),
      t(2, 0, { voidTurn: true }),
      t(2, 1),
    ];
    const pipeline = composeFilters(executionValidity(), dynamicSampling(), voidTurn({ mode: 'drop' }));
    expect(pipeline.name).toBe('execution-validity+dynamic-sampling+void-turn');
    const result = pipeline.apply(batch);
    expect(result.keptIndices).toEqual([4]);
    expect(result.dropped.map((d) => [d.index, d.reason])).toEqual([
      [0, 'all-tool-calls-failed'],
      [1, ZERO_STD],
      [2, ZERO_STD],
      [3, VOID_TURN],
    ]);
    expect(result.stats.dropped).toEqual({ 'all-tool-calls-failed': 1, [ZERO_STD]: 2, [VOID_TURN]: 1 });
    expect(result.stats.stages).toHaveLength(3);
  });

  it("names each stage's own metrics after the stage, and reads response lengths from responseIds", () => {
    // A filter of one's own that reports a metric of the batch it saw: the mean response length.
    const lengths: Filter = {
      name: 'short-only',
      apply(batch, positions) {
        const result = trajectoryFilter('short-only', (item) =>
          (item.responseIds?.length ?? 0) <= 3 ? null : { action: 'drop', reason: 'too-long' },
        ).apply(batch, positions);
        const total = batch.reduce((sum, item) => sum + (item.responseIds?.length ?? 0), 0);
        return { ...result, stats: { ...result.stats, metrics: { meanLength: total / batch.length } } };
      },
    };
    const batch = [
      t(1, 1, { responseIds: Int32Array.from([5, 6]) }),
      t(1, 0, { responseIds: Int32Array.from([5, 6, 7, 8]) }),
    ];
    const result = composeFilters(executionValidity(), lengths).apply(batch);
    expect(result.keptIndices).toEqual([0]);
    expect(result.stats.metrics).toEqual({ 'short-only.meanLength': 3 });
    expect(composeFilters(executionValidity()).apply(batch).stats.metrics).toBeUndefined();
  });

  it('with no filters keeps everything', () => {
    const batch = [t(1, 1)];
    const result = composeFilters().apply(batch);
    expect(result.kept[0]).toBe(batch[0]);
    expect(result.stats).toMatchObject({ filter: 'identity', input: 1, kept: 1 });
  });

  it('rejects positions of the wrong length', () => {
    expect(() => executionValidity().apply([t(1, 1)], [0, 1])).toThrow(
      /positions has 2 entries for a batch of 1/,
    );
  });
});

describe('filter registry', () => {
  it('builds the built-in filters by name with config options', () => {
    expect(filterNames()).toEqual(
      expect.arrayContaining([
        'execution-validity',
        'answer-discriminability',
        'tool-aware',
        'dynamic-sampling',
        'void-turn',
        'tool-outage',
      ]),
    );
    const filter = getFilter('tool-aware', { mode: 'mask', minGroupSize: 2 });
    expect(filter.name).toBe('tool-aware');
    expect(() => getFilter('tool-aware', { mask: true })).toThrow(/unknown option 'mask'/);
    expect(() => getFilter('tool_aware')).toThrow(
      'unknown filter "tool_aware" (did you mean "tool-aware"?); registered: answer-discriminability, ' +
        'dynamic-sampling, tool-outage, execution-validity, overlong, resample-on-correct, tool-aware, void-turn',
    );
  });

  it('registers a user filter, refusing to overwrite one silently', () => {
    const shortOnly = (options: Readonly<Record<string, unknown>> = {}): Filter => {
      const max = Number(options.maxTokens ?? 2);
      return trajectoryFilter('short-only', (x) =>
        (x.lossMask?.length ?? 0) <= max ? null : { action: 'drop', reason: 'too-long' },
      );
    };
    registerFilter('short-only', shortOnly);
    expect(getFilter('short-only', { maxTokens: 1 }).apply([t(1, 1)]).stats.dropped).toEqual({
      'too-long': 1,
    });
    expect(() => registerFilter('short-only', shortOnly)).toThrow(/already registered/);
    registerFilter('short-only', shortOnly, { replace: true });
  });

  it("checks a user filter's options with its zod schema and gives the factory the parsed options", () => {
    const schema = z.strictObject({ maxTokens: z.number().int().min(0).default(2) });
    registerFilter(
      'short-only-zod',
      ({ maxTokens }) =>
        trajectoryFilter('short-only-zod', (x) =>
          (x.lossMask?.length ?? 0) <= maxTokens ? null : { action: 'drop', reason: 'too-long' },
        ),
      { schema },
    );
    expect(getFilter('short-only-zod').apply([t(1, 1)]).stats.dropped).toEqual({});
    expect(getFilter('short-only-zod', { maxTokens: 1 }).apply([t(1, 1), t(1, 0)]).stats.dropped).toEqual({
      'too-long': 2,
    });
    expect(() => getFilter('short-only-zod', { maxTokens: -1 })).toThrow(
      /^filter "short-only-zod": option 'maxTokens': /,
    );
    expect(() => getFilter('short-only-zod', { maxTokns: 1 })).toThrow(/filter "short-only-zod": .*maxTokns/);
  });
});
