// Exact order statistics by two-level radix selection over the float bits: O(n) with two passes per statistic
// and no sort, which keeps the batch-wide entropy threshold cheap at millions of tokens.

const SIGN = 0x80000000;

/** Maps float32 bits to a uint32 whose unsigned order is the numeric order of the floats (NaN excluded). */
function sortableKey(bits: number): number {
  return (bits & SIGN) !== 0 ? ~bits >>> 0 : (bits | SIGN) >>> 0;
}

function floatOfKey(key: number): number {
  const bits = (key & SIGN) !== 0 ? (key ^ SIGN) >>> 0 : ~key >>> 0;
  return new Float32Array(Uint32Array.of(bits).buffer)[0]!;
}

/** The k-th smallest value (0-based) of `values`, which are read, never reordered. */
export function kthSmallest(values: Float32Array, k: number): number {
  if (!Number.isInteger(k) || k < 0 || k >= values.length) {
    throw new Error(`kthSmallest: rank ${k} is outside 0..${values.length - 1}`);
  }
  const bits = new Uint32Array(values.buffer, values.byteOffset, values.length);
  const histogram = new Uint32Array(65536);
  for (let i = 0; i < bits.length; i++) histogram[sortableKey(bits[i]!) >>> 16]!++;
  let rank = k;
  let high = 0;
  while (rank >= histogram[high]!) rank -= histogram[high++]!;
  histogram.fill(0);
  for (let i = 0; i < bits.length; i++) {
    const key = sortableKey(bits[i]!);
    if (key >>> 16 === high) histogram[key & 0xffff]!++;
  }
  let low = 0;
  while (rank >= histogram[low]!) rank -= histogram[low++]!;
  return floatOfKey(((high << 16) | low) >>> 0);
}

/**
 * The q-quantile with linear interpolation between order statistics (numpy's and torch.quantile's default):
 * position p = q (n - 1), value v_floor(p) + (p - floor(p)) (v_ceil(p) - v_floor(p)), computed in float64.
 */
export function quantile(values: Float32Array, q: number): number {
  if (values.length === 0) throw new Error('quantile of an empty set');
  const position = q * (values.length - 1);
  const below = Math.floor(position);
  const fraction = position - below;
  const low = kthSmallest(values, below);
  if (fraction === 0) return low;
  const high = kthSmallest(values, below + 1);
  return low + fraction * (high - low);
}
