import type { AdvantageLayout, TokenAdvantages, TrajectoryWithLossMask } from './types';

function checkMask(t: TrajectoryWithLossMask, i: number): Uint8Array {
  if (!(t.lossMask instanceof Uint8Array))
    throw new Error(`trajectory ${i}: field 'lossMask' must be a Uint8Array`);
  return t.lossMask;
}

/** Rows of the given lengths: views into one buffer (`packed`) or one array each (`separate`). */
export function allocateRows(lengths: readonly number[], layout: AdvantageLayout): TokenAdvantages {
  if (layout === 'separate') {
    return { perTrajectory: lengths.map((n) => new Float32Array(n)), packed: null };
  }
  if (layout !== 'packed')
    throw new Error(`layout must be 'packed' or 'separate', got ${JSON.stringify(layout)}`);
  const offsets = new Int32Array(lengths.length + 1);
  lengths.forEach((n, i) => {
    offsets[i + 1] = offsets[i]! + n;
  });
  const data = new Float32Array(offsets[lengths.length]!);
  const perTrajectory = lengths.map((n, i) => data.subarray(offsets[i]!, offsets[i]! + n));
  return { perTrajectory, packed: { data, offsets } };
}

/** A copy in the same layout, for shapers that must not write to their input. */
export function copyTokenAdvantages(source: TokenAdvantages): TokenAdvantages {
  if (source.packed === null)
    return { perTrajectory: source.perTrajectory.map((row) => row.slice()), packed: null };
  const data = source.packed.data.slice();
  const { offsets } = source.packed;
  const perTrajectory = source.perTrajectory.map((_, i) => data.subarray(offsets[i]!, offsets[i + 1]!));
  return { perTrajectory, packed: { data, offsets: offsets.slice() } };
}

/**
 * Broadcast each trajectory's sequence advantage to its policy tokens: A_t = A_i where lossMask_t != 0, else 0.
 */
export function tokenAdvantages(
  batch: readonly TrajectoryWithLossMask[],
  advantages: ArrayLike<number>,
  options: { readonly layout?: AdvantageLayout } = {},
): TokenAdvantages {
  if (advantages.length !== batch.length) {
    throw new Error(
      `advantages has ${advantages.length} entries for a batch of ${batch.length} trajectories`,
    );
  }
  const masks = batch.map(checkMask);
  const out = allocateRows(
    masks.map((m) => m.length),
    options.layout ?? 'packed',
  );
  masks.forEach((mask, i) => {
    const a = advantages[i]!;
    if (!Number.isFinite(a)) throw new Error(`advantages[${i}] must be finite, got ${a}`);
    const row = out.perTrajectory[i]!;
    for (let t = 0; t < mask.length; t++) row[t] = mask[t] !== 0 ? a : 0;
  });
  return out;
}
