/**
 * Counter-based randomness: every random choice of a run draws from a seed derived from (run seed, purpose,
 * counters such as the step), never from a stream that advances. The whole "RNG state" a checkpoint must keep is
 * therefore the run seed and the step, and a resumed run makes exactly the choices the uninterrupted run made.
 * The rollout engine derives each lane's and turn's sampling seed this way.
 */
export function deriveSeed(seed: number, purpose: string, ...counters: number[]): number {
  // FNV-1a over the purpose and counters, then a murmur3 finalizer for avalanche.
  let h = (2166136261 ^ seed) >>> 0;
  const mix = (value: number) => {
    h ^= value & 0xff;
    h = Math.imul(h, 16777619) >>> 0;
  };
  for (let i = 0; i < purpose.length; i++) mix(purpose.charCodeAt(i));
  for (const counter of counters) for (let shift = 0; shift < 32; shift += 8) mix(counter >>> shift);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b) >>> 0;
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35) >>> 0;
  h ^= h >>> 16;
  return h >>> 0;
}
