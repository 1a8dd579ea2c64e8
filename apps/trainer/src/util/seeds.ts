// deriveSeed lives with the rollout, whose sampling seeds it derives, and the seeded generator with the grader,
// which draws its comparison points with it; the trainer's own draws use both.
import { seededRandom } from '@taorl/eval';

export { deriveSeed } from '@taorl/rollout';
export { seededRandom };

/** A seeded Fisher-Yates permutation of 0..n-1. */
export function permutation(n: number, seed: number): number[] {
  const random = seededRandom(seed);
  const order = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order;
}
