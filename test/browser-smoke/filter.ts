import { filterNames, getFilter } from '@taorl/filter';

/** A TAO-RL filter verdict, the filter found by name in @taorl/filter's registry. */
export function run() {
  const batch = [
    { groupId: 'q1', correct: true, toolCalls: [{ status: 'error' }] },
    { groupId: 'q1', correct: false, toolCalls: [{ status: 'ok' }] },
    { groupId: 'q1', correct: true, toolCalls: [{ status: 'error' }, { status: 'ok' }] },
    { groupId: 'q2', correct: true, toolCalls: [] },
    { groupId: 'q2', correct: true, toolCalls: [{ status: 'ok' }] },
  ];
  const { keptIndices, dropped, stats } = getFilter('tool-aware').apply(batch);
  return {
    names: filterNames(),
    keptIndices,
    dropped: dropped.map(({ index, filter, reason }) => ({ index, filter, reason })),
    histogram: stats.passRates?.histogram ?? null,
  };
}
