/** Two-sided 97.5% quantiles of Student's t for 1..30 degrees of freedom (standard tables, 3 decimals). */
const T_975 = [
  12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131,
  2.12, 2.11, 2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042,
];

/** The t quantile a 95% confidence interval of a mean uses; beyond 30 degrees of freedom the normal 1.96. */
export function tQuantile975(degreesOfFreedom: number): number {
  if (!Number.isInteger(degreesOfFreedom) || degreesOfFreedom < 1)
    throw new RangeError(`degrees of freedom must be a positive integer, got ${degreesOfFreedom}`);
  return T_975[degreesOfFreedom - 1] ?? 1.96;
}

export interface MeanWithInterval {
  mean: number;
  /** Half-width of the 95% interval (Student's t over the seeds); NaN with a single value. */
  halfWidth: number;
  /** Sample standard deviation (n - 1). */
  sd: number;
  n: number;
}

/**
 * Mean and 95% confidence interval of per-seed values: with 3 seeds the t factor is 4.30, so intervals are wide,
 * which is the honest statement of what 3 seeds can show.
 */
export function meanWithInterval(values: readonly number[]): MeanWithInterval {
  const n = values.length;
  if (n === 0) throw new RangeError('meanWithInterval: no values');
  const mean = values.reduce((sum, v) => sum + v, 0) / n;
  if (n === 1) return { mean, halfWidth: Number.NaN, sd: Number.NaN, n };
  const sd = Math.sqrt(values.reduce((sum, v) => sum + (v - mean) ** 2, 0) / (n - 1));
  return { mean, halfWidth: (tQuantile975(n - 1) * sd) / Math.sqrt(n), sd, n };
}

/** Sample variance (n - 1); 0 for fewer than two values. */
export function sampleVariance(values: readonly number[]): number {
  if (values.length < 2) return 0;
  const mean = values.reduce((sum, v) => sum + v, 0) / values.length;
  return values.reduce((sum, v) => sum + (v - mean) ** 2, 0) / (values.length - 1);
}

export interface CorrelationWithInterval {
  /** Pearson's r; NaN when either side does not vary. */
  r: number;
  /** The 95% interval (Fisher's z); NaN when there are too few values for one. */
  low: number;
  high: number;
  n: number;
}

/**
 * Pearson correlation of paired values, with a 95% interval from Fisher's z transform: atanh(r) ± 1.96 /
 * sqrt(n - 3 - controlled). `controlled` counts the variables already removed from both sides (a partial
 * correlation): k - 1 for values centred within k groups (`centredWithin`).
 */
export function correlationWithInterval(
  xs: readonly number[],
  ys: readonly number[],
  controlled = 0,
): CorrelationWithInterval {
  const n = xs.length;
  if (ys.length !== n) throw new RangeError(`correlation: ${n} values against ${ys.length}`);
  const mx = xs.reduce((sum, v) => sum + v, 0) / n;
  const my = ys.reduce((sum, v) => sum + v, 0) / n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  xs.forEach((x, i) => {
    const [dx, dy] = [x - mx, ys[i]! - my];
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  });
  const r = sxx === 0 || syy === 0 ? Number.NaN : sxy / Math.sqrt(sxx * syy);
  const freedom = n - 3 - controlled;
  if (Number.isNaN(r) || freedom < 1) return { r, low: Number.NaN, high: Number.NaN, n };
  const [z, half] = [Math.atanh(r), 1.96 / Math.sqrt(freedom)];
  return { r, low: Math.tanh(z - half), high: Math.tanh(z + half), n };
}

/** Each value minus the mean of its group's values (`groups[i]` names value i's group). */
export function centredWithin(values: readonly number[], groups: readonly number[]): number[] {
  const totals = new Map<number, { sum: number; n: number }>();
  values.forEach((value, i) => {
    const total = totals.get(groups[i]!) ?? { sum: 0, n: 0 };
    totals.set(groups[i]!, { sum: total.sum + value, n: total.n + 1 });
  });
  return values.map((value, i) => {
    const { sum, n } = totals.get(groups[i]!)!;
    return value - sum / n;
  });
}
