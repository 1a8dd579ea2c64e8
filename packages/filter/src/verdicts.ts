import type {
  DroppedTrajectory,
  FilterAction,
  FilterableTrajectory,
  FilterResult,
  GroupId,
  MaskedTrajectory,
  PassRateReport,
} from './types';

/** What a filter decided for one trajectory: `null` keeps it as it is. */
export type Verdict = { readonly action: FilterAction; readonly reason: string } | null;

export function defaultPositions(n: number, positions: readonly number[] | undefined): readonly number[] {
  if (positions === undefined) return Array.from({ length: n }, (_, i) => i);
  if (positions.length !== n) {
    throw new Error(`positions has ${positions.length} entries for a batch of ${n}`);
  }
  return positions;
}

/** A copy of the trajectory whose loss mask is all zeros: it keeps its place (and reward) but trains nothing. */
function withZeroLossMask<T extends FilterableTrajectory>(t: T, position: number, filter: string): T {
  if (!(t.lossMask instanceof Uint8Array)) {
    throw new Error(`${filter}: trajectory ${position} has no Uint8Array 'lossMask' to zero in mask mode`);
  }
  return { ...t, lossMask: new Uint8Array(t.lossMask.length) };
}

function countGroups(items: readonly FilterableTrajectory[]): number {
  return new Set<GroupId>(items.map((t) => t.groupId)).size;
}

function increment(counts: Record<string, number>, reason: string): void {
  counts[reason] = (counts[reason] ?? 0) + 1;
}

/** Turn per-trajectory verdicts into the kept / dropped / masked lists and their counts. */
export function applyVerdicts<T extends FilterableTrajectory>(
  filter: string,
  batch: readonly T[],
  positions: readonly number[],
  verdicts: readonly Verdict[],
  passRates?: PassRateReport,
): FilterResult<T> {
  const kept: T[] = [];
  const keptIndices: number[] = [];
  const dropped: DroppedTrajectory<T>[] = [];
  const masked: MaskedTrajectory[] = [];
  const resampled: DroppedTrajectory<T>[] = [];
  const droppedCounts: Record<string, number> = {};
  const maskedCounts: Record<string, number> = {};
  const resampledCounts: Record<string, number> = {};
  batch.forEach((item, i) => {
    const verdict = verdicts[i] ?? null;
    const index = positions[i]!;
    if (verdict === null) {
      kept.push(item);
      keptIndices.push(index);
    } else if (verdict.action === 'drop') {
      dropped.push({ item, index, filter, reason: verdict.reason });
      increment(droppedCounts, verdict.reason);
    } else if (verdict.action === 'resample') {
      resampled.push({ item, index, filter, reason: verdict.reason });
      increment(resampledCounts, verdict.reason);
    } else {
      kept.push(withZeroLossMask(item, index, filter));
      keptIndices.push(index);
      masked.push({ index, filter, reason: verdict.reason });
      increment(maskedCounts, verdict.reason);
    }
  });
  return {
    kept,
    keptIndices,
    dropped,
    masked,
    resampled,
    stats: {
      filter,
      input: batch.length,
      inputGroups: countGroups(batch),
      kept: kept.length,
      keptGroups: countGroups(kept),
      dropped: droppedCounts,
      masked: maskedCounts,
      resampled: resampledCounts,
      ...(passRates === undefined ? {} : { passRates }),
      stages: [],
    },
  };
}
