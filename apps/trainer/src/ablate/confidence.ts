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
