/**
 * Unbiased pass@k estimator of Chen et al. 2021 ("Evaluating Large Language Models Trained on Code", eq. 1):
 * 1 - C(n - c, k) / C(n, k) for n samples of which c are correct, computed as a running product to stay stable.
 */
export function passAtK(n: number, c: number, k: number): number {
  for (const [name, value] of Object.entries({ n, c, k })) {
    if (!Number.isInteger(value) || value < 0)
      throw new RangeError(`passAtK: ${name} must be a non-negative integer, got ${value}`);
  }
  if (c > n) throw new RangeError(`passAtK: c (${c}) exceeds n (${n})`);
  if (k < 1 || k > n) throw new RangeError(`passAtK: k must be in 1..n (n = ${n}), got ${k}`);
  if (n - c < k) return 1;
  let allWrong = 1;
  for (let i = n - c + 1; i <= n; i++) allWrong *= 1 - k / i;
  return 1 - allWrong;
}
