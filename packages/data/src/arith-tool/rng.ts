/**
 * A seeded generator (mulberry32: 32-bit state, full period 2^32). Deterministic across platforms and runs,
 * which is all the task generator needs; not for cryptography.
 */
export class Rng {
  #state: number;

  constructor(seed: number) {
    if (!Number.isInteger(seed)) throw new RangeError(`Rng: seed must be an integer, got ${seed}`);
    this.#state = seed >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Uniform integer in [low, high], both included. */
  int(low: number, high: number): number {
    return low + Math.floor(this.next() * (high - low + 1));
  }

  /** A uniform integer with exactly `digits` decimal digits. */
  digits(digits: number): number {
    return this.int(10 ** (digits - 1), 10 ** digits - 1);
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('Rng.pick: no items');
    return items[Math.floor(this.next() * items.length)] as T;
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }
}

/** FNV-1a, 32 bit: a stable hash of a string; a different offset basis gives an independent-enough second hash. */
export function fnv1a(text: string, basis = 0x811c9dc5): number {
  let hash = basis;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
