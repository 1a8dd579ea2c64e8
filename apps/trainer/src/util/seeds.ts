// deriveSeed lives with the rollout, whose sampling seeds it derives; the trainer's other draws use it too.
export { deriveSeed } from '@taorl/rollout';

/** mulberry32: a small, fast 32-bit PRNG without global state (initialisation, sampling, shuffles). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A seeded Fisher-Yates permutation of 0..n-1. */
export function permutation(n: number, seed: number): number[] {
  const random = prng(seed);
  const order = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order;
}
