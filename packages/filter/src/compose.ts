import type {
  DroppedTrajectory,
  Filter,
  FilterableTrajectory,
  FilterResult,
  FilterStats,
  MaskedTrajectory,
  PassRateReport,
} from './types';
import { defaultPositions } from './verdicts';

function addCounts(into: Record<string, number>, from: Readonly<Record<string, number>>): void {
  for (const [reason, n] of Object.entries(from)) into[reason] = (into[reason] ?? 0) + n;
}

/**
 * Run filters in order, each on the survivors of the previous one. Positions in the result refer to the
 * original batch; a dropped item is the caller's object even when an earlier stage masked it.
 */
export function composeFilters(...filters: readonly Filter[]): Filter {
  return composeNamed(filters.map((f) => f.name).join('+') || 'identity', filters);
}

/** A composition reported under its own name (e.g. `tool-aware` for C1 + C2). */
export function composeNamed(name: string, filters: readonly Filter[]): Filter {
  return {
    name,
    apply<T extends FilterableTrajectory>(
      batch: readonly T[],
      positions?: readonly number[],
    ): FilterResult<T> {
      const at = defaultPositions(batch.length, positions);
      const original = new Map<number, T>(at.map((p, i) => [p, batch[i]!]));
      let kept: T[] = [...batch];
      let keptIndices: number[] = [...at];
      const dropped: DroppedTrajectory<T>[] = [];
      const masked: MaskedTrajectory[] = [];
      const resampled: DroppedTrajectory<T>[] = [];
      const stages: FilterStats[] = [];
      for (const filter of filters) {
        const stage = filter.apply(kept, keptIndices);
        for (const d of stage.dropped) dropped.push({ ...d, item: original.get(d.index)! });
        for (const r of stage.resampled) resampled.push({ ...r, item: original.get(r.index)! });
        masked.push(...stage.masked);
        stages.push(stage.stats);
        kept = stage.kept;
        keptIndices = stage.keptIndices;
      }
      const droppedCounts: Record<string, number> = {};
      const maskedCounts: Record<string, number> = {};
      const metrics: Record<string, number> = {};
      const resampledCounts: Record<string, number> = {};
      let passRates: PassRateReport | undefined;
      for (const stage of stages) {
        addCounts(droppedCounts, stage.dropped);
        addCounts(maskedCounts, stage.masked);
        addCounts(resampledCounts, stage.resampled);
        passRates = stage.passRates ?? passRates;
        for (const [metric, value] of Object.entries(stage.metrics ?? {}))
          metrics[`${stage.filter}.${metric}`] = value;
      }
      const inputGroups = new Set(batch.map((t) => t.groupId)).size;
      return {
        kept,
        keptIndices,
        dropped: dropped.sort((a, b) => a.index - b.index),
        masked: masked.sort((a, b) => a.index - b.index),
        resampled: resampled.sort((a, b) => a.index - b.index),
        stats: {
          filter: name,
          input: batch.length,
          inputGroups,
          kept: kept.length,
          keptGroups: new Set(kept.map((t) => t.groupId)).size,
          dropped: droppedCounts,
          masked: maskedCounts,
          resampled: resampledCounts,
          ...(passRates === undefined ? {} : { passRates }),
          stages,
          ...(Object.keys(metrics).length === 0 ? {} : { metrics }),
        },
      };
    },
  };
}
