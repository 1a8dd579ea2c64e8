// Independent float64 recomputations of the formulas in docs/explanation/advantages.md (sections 1-4), written
// plainly (sorts, per-token loops) so that they share no code with the optimised sources.
import type { TestTrajectory } from './random';

export function groupsOf(groupIds: readonly number[]): number[][] {
  const ids = [...new Set(groupIds)];
  return ids.map((id) => groupIds.flatMap((g, i) => (g === id ? [i] : [])));
}

export function referenceGrpo(rewards: readonly number[], groupIds: readonly number[], eps = 1e-6): number[] {
  const out = rewards.map(() => 0);
  for (const members of groupsOf(groupIds)) {
    if (members.length < 2) continue;
    const values = members.map((i) => rewards[i]!);
    const mean = values.reduce((a, b) => a + b, 0) / values.length;
    const variance = values.reduce((a, r) => a + (r - mean) * (r - mean), 0) / (values.length - 1);
    members.forEach((i) => {
      out[i] = (rewards[i]! - mean) / (Math.sqrt(variance) + eps);
    });
  }
  return out;
}

/** Is token p in M_post? The latest observation that ended at or before p must belong to a successful call. */
export function referenceInPostTool(t: TestTrajectory, p: number, firstTokens?: number): boolean {
  if (t.lossMask[p] === 0) return false;
  let latest = -1;
  t.toolCalls.forEach((call, j) => {
    if (call.endToken <= p) latest = j;
  });
  if (latest < 0 || t.toolCalls[latest]!.status !== 'ok') return false;
  if (firstTokens === undefined) return true;
  let rank = 0;
  for (let q = t.toolCalls[latest]!.endToken; q <= p; q++) if (t.lossMask[q] !== 0) rank++;
  return rank <= firstTokens;
}

/** numpy.quantile(values, q) with the default linear interpolation. */
export function referenceQuantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const position = q * (sorted.length - 1);
  const lo = Math.floor(position);
  const hi = Math.ceil(position);
  return sorted[lo]! + (position - lo) * (sorted[hi]! - sorted[lo]!);
}

export interface ReferenceBonus {
  readonly shaped: number[][];
  readonly inS: boolean[][];
  readonly candidates: number;
  readonly selected: number;
  readonly threshold: number | null;
  readonly scale: number;
}

/** TAO-RL's bonus: S = top q_H of M_post by entropy, psi = min(alpha H / mean_S H, |A| / kappa), A' = A + psi. */
export function referenceTaoBonus(
  batch: readonly TestTrajectory[],
  tokenAdvantages: readonly Float32Array[],
  options: { alpha: number; kappa: number; topFraction: number; firstTokens?: number },
): ReferenceBonus {
  const candidate = batch.map((t) =>
    Array.from(t.lossMask, (_, p) => referenceInPostTool(t, p, options.firstTokens)),
  );
  const values = batch.flatMap((t, i) => Array.from(t.entropies).filter((_, p) => candidate[i]![p]));
  const threshold =
    values.length === 0 || options.topFraction === 0
      ? null
      : referenceQuantile(values, 1 - options.topFraction);
  const inS = batch.map((t, i) =>
    Array.from(t.entropies, (h, p) => threshold !== null && candidate[i]![p]! && h >= threshold),
  );
  const selectedValues = batch.flatMap((t, i) => Array.from(t.entropies).filter((_, p) => inS[i]![p]));
  const scale = selectedValues.length ? selectedValues.reduce((a, b) => a + b, 0) / selectedValues.length : 0;
  const shaped = batch.map((t, i) =>
    Array.from(tokenAdvantages[i]!, (a, p) => {
      if (!inS[i]![p]) return a;
      const normalised = scale > 0 ? t.entropies[p]! / scale : 0;
      return a + Math.min(options.alpha * normalised, Math.abs(a) / options.kappa);
    }),
  );
  return { shaped, inS, candidates: values.length, selected: selectedValues.length, threshold, scale };
}
