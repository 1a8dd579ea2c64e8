/** Float64 recomputations the tests compare the float32 tfjs kernels against. Plain loops, no tfjs. */

/** log-probability of `target` and entropy of softmax(row / temperature), in float64. */
export function logProbAndEntropy64(row: ArrayLike<number>, target: number, temperature = 1) {
  const scaled = Array.from(row, (value) => value / temperature);
  const max = Math.max(...scaled);
  const logNormaliser = max + Math.log(scaled.reduce((sum, value) => sum + Math.exp(value - max), 0));
  const logSoftmax = scaled.map((value) => value - logNormaliser);
  const entropy = -logSoftmax.reduce((sum, value) => sum + Math.exp(value) * value, 0);
  return { logProb: logSoftmax[target]!, entropy };
}

/** Central finite differences of f at x in float64. */
export function finiteDifferences(f: (x: number[]) => number, x: readonly number[], step = 1e-6): number[] {
  return x.map((_, index) => {
    const plus = [...x];
    const minus = [...x];
    plus[index]! += step;
    minus[index]! -= step;
    return (f(plus) - f(minus)) / (2 * step);
  });
}

export interface ClipSettings64 {
  clipLow: number;
  clipHigh: number;
  dualClip: number | null;
}

/** The clipped surrogate per token, written from ALGORITHMS.md section 5 in float64. */
export function vanillaPerToken64(
  logp: number,
  oldLogp: number,
  advantage: number,
  clip: ClipSettings64,
): number {
  const ratio = Math.exp(Math.min(20, Math.max(-20, logp - oldLogp)));
  const clippedRatio = Math.min(1 + clip.clipHigh, Math.max(1 - clip.clipLow, ratio));
  const surrogate = Math.max(-advantage * ratio, -advantage * clippedRatio);
  return advantage < 0 && clip.dualClip !== null
    ? Math.min(surrogate, -advantage * clip.dualClip)
    : surrogate;
}

/** verl's agg_loss for padded rows (one sequence per row), written with row sums. */
export function aggregate64(
  perToken: readonly number[],
  mask: readonly number[],
  columns: number,
  mode: string,
  horizon = columns,
): number {
  const rows = perToken.length / columns;
  const rowSums: number[] = [];
  const rowCounts: number[] = [];
  for (let row = 0; row < rows; row++) {
    let sum = 0;
    let count = 0;
    for (let column = 0; column < columns; column++) {
      sum += perToken[row * columns + column]! * mask[row * columns + column]!;
      count += mask[row * columns + column]!;
    }
    rowSums.push(sum);
    rowCounts.push(count);
  }
  const total = rowSums.reduce((a, b) => a + b, 0);
  if (mode === 'token-mean') return total / rowCounts.reduce((a, b) => a + b, 0);
  if (mode === 'seq-mean-token-sum') return total / rows;
  if (mode === 'seq-mean-token-mean')
    return rowSums.reduce((sum, value, row) => sum + value / rowCounts[row]!, 0) / rows;
  if (mode === 'seq-mean-token-sum-norm') return total / horizon;
  throw new Error(`no reference for ${mode}`);
}

/** k1, k2, k3 of d = logp - logp_ref (Schulman 2020), k3 with verl's clamps. */
export function kl64(kind: 'k1' | 'k2' | 'k3', logp: number, refLogp: number): number {
  const d = logp - refLogp;
  if (kind === 'k1') return d;
  if (kind === 'k2') return (d * d) / 2;
  const x = Math.min(20, Math.max(-20, -d));
  return Math.min(10, Math.max(-10, Math.exp(x) - x - 1));
}
