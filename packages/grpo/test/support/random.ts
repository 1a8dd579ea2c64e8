/** n values uniform in [low, high). */
export function uniform(random: () => number, n: number, low = -1, high = 1): number[] {
  return Array.from({ length: n }, () => low + (high - low) * random());
}
