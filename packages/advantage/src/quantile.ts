// Exact order statistics by radix selection over the float bits: O(n), two passes over the values and no sort,
// which keeps the batch-wide entropy threshold cheap at millions of tokens (a sort is ~20x slower).

const SIGN = 0x80000000;
const BUCKETS = 65536;

/** Maps float32 bits to a uint32 whose unsigned order is the numeric order (-0 maps with +0; no NaN). */
function sortableKey(bits: number): number {
  if (bits === SIGN) return SIGN;
  return (bits & SIGN) !== 0 ? ~bits >>> 0 : (bits | SIGN) >>> 0;
}

const scratch = new Float32Array(1);
const scratchBits = new Uint32Array(scratch.buffer);
function valueOfKey(key: number): number {
  scratchBits[0] = (key & SIGN) !== 0 ? (key ^ SIGN) >>> 0 : ~key >>> 0;
  return scratch[0]!;
}

export interface TopSelection {
  /** The (1 - q) quantile, linear interpolation between order statistics (numpy's and torch's default). */
  readonly threshold: number;
  /** |S| and the sum over S, S = { x : x >= threshold }. */
  readonly count: number;
  readonly sum: number;
}

/**
 * The top `fraction` of `values` as S = { x >= Q(1 - fraction) }, ties included. Q is the linear-interpolation
 * quantile at position p = (1 - fraction)(n - 1), computed in float64. Null when S is empty by construction
 * (no values, or fraction 0). The values are only read.
 */
export function selectTop(values: Float32Array, fraction: number): TopSelection | null {
  const n = values.length;
  if (n === 0 || fraction <= 0) return null;
  const bits = new Uint32Array(values.buffer, values.byteOffset, n);
  // Pass 1: count and sum per high 16 bits of the key.
  const counts = new Uint32Array(BUCKETS);
  const sums = new Float64Array(BUCKETS);
  for (let i = 0; i < n; i++) {
    const high = sortableKey(bits[i]!) >>> 16;
    counts[high]!++;
    sums[high]! += values[i]!;
  }
  // Pass 2 (per bucket needed, usually one): counts per low 16 bits inside one high bucket.
  const lowCounts = new Map<number, Uint32Array>();
  const lowCountsOf = (high: number): Uint32Array => {
    let low = lowCounts.get(high);
    if (low === undefined) {
      low = new Uint32Array(BUCKETS);
      for (let i = 0; i < n; i++) {
        const key = sortableKey(bits[i]!);
        if (key >>> 16 === high) low[key & 0xffff]!++;
      }
      lowCounts.set(high, low);
    }
    return low;
  };
  const kth = (k: number): number => {
    let rank = k;
    let high = 0;
    while (rank >= counts[high]!) rank -= counts[high++]!;
    const low = lowCountsOf(high);
    let l = 0;
    while (rank >= low[l]!) rank -= low[l++]!;
    return ((high << 16) | l) >>> 0;
  };
  const position = (1 - fraction) * (n - 1);
  const below = Math.floor(position);
  const belowKey = kth(below);
  const belowValue = valueOfKey(belowKey);
  const aboveKey = position > below ? kth(below + 1) : belowKey;
  const threshold = belowValue + (position - below) * (valueOfKey(aboveKey) - belowValue);
  // No value lies strictly between the two order statistics, so S starts at one of them.
  const firstKey = threshold <= belowValue ? belowKey : aboveKey;
  const firstHigh = firstKey >>> 16;
  let count = 0;
  let sum = 0;
  for (let h = firstHigh + 1; h < BUCKETS; h++) {
    count += counts[h]!;
    sum += sums[h]!;
  }
  const low = lowCountsOf(firstHigh);
  for (let l = firstKey & 0xffff; l < BUCKETS; l++) {
    if (low[l] === 0) continue;
    count += low[l]!;
    sum += low[l]! * valueOfKey(((firstHigh << 16) | l) >>> 0);
  }
  return { threshold, count, sum };
}
