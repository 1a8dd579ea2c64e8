import type { Group } from './trajectory/types';

/** A question's pass rate under the current policy: the share of its k samples that were correct. */
export interface PassRate {
  id: string;
  passRate: number;
  samples: number;
}

export interface CurationOptions {
  /** Keep questions with passRate > low. Default 0. */
  low?: number;
  /** Keep questions with passRate < high. Default 1. */
  high?: number;
  /** Equal-width histogram bins over [0, 1]. Default 10. */
  bins?: number;
}

export interface HistogramBin {
  /** Bin range [lower, upper), the last bin closed at 1. */
  lower: number;
  upper: number;
  count: number;
}

export interface CurationReport<T> {
  kept: T[];
  dropped: T[];
  histogram: HistogramBin[];
  /** Questions never solved (passRate 0) and always solved (passRate 1): the two ends RL learns nothing from. */
  neverSolved: number;
  alwaysSolved: number;
}

/** Pass rates from groups of graded samples, one per group (the group's id is the question's). */
export function passRates(groups: ReadonlyArray<Group<{ groupId: string; correct: boolean }>>): PassRate[] {
  return groups.map((group) => {
    if (group.trajectories.length === 0)
      throw new RangeError(`passRates: group ${group.groupId} has no samples`);
    const correct = group.trajectories.filter((t) => t.correct).length;
    return {
      id: group.groupId,
      passRate: correct / group.trajectories.length,
      samples: group.trajectories.length,
    };
  });
}

/**
 * Model-aware curation ("Demystifying RL in Agentic Reasoning", ALGORITHMS.md section 7): keep the questions
 * whose pass rate lies strictly inside (low, high), so RL is spent where the policy sometimes succeeds and
 * sometimes fails, and report the pass-rate histogram of all of them.
 */
export function curateByPassRate<T extends { passRate: number }>(
  items: readonly T[],
  options: CurationOptions = {},
): CurationReport<T> {
  const { low = 0, high = 1, bins = 10 } = options;
  if (!(low >= 0 && high <= 1 && low < high)) {
    throw new RangeError(`curateByPassRate: need 0 <= low < high <= 1, got low ${low}, high ${high}`);
  }
  if (!Number.isInteger(bins) || bins < 1)
    throw new RangeError(`curateByPassRate: bins must be a positive integer, got ${bins}`);
  const histogram: HistogramBin[] = Array.from({ length: bins }, (_, i) => ({
    lower: i / bins,
    upper: (i + 1) / bins,
    count: 0,
  }));
  const report: CurationReport<T> = { kept: [], dropped: [], histogram, neverSolved: 0, alwaysSolved: 0 };
  items.forEach((item, index) => {
    const rate = item.passRate;
    if (!(rate >= 0 && rate <= 1)) {
      throw new RangeError(`curateByPassRate: item ${index} has passRate ${rate}; pass rates lie in [0, 1]`);
    }
    (histogram[Math.min(bins - 1, Math.floor(rate * bins))] as HistogramBin).count++;
    if (rate === 0) report.neverSolved++;
    if (rate === 1) report.alwaysSolved++;
    (rate > low && rate < high ? report.kept : report.dropped).push(item);
  });
  return report;
}
