/**
 * How per-token losses become one scalar (verl core_algos.py agg_loss). Every mode is a weighted sum
 * sum_t w_t L_t with weights that depend only on the loss mask and on which tokens form a sequence, so the
 * weights are computed once from plain data: for a whole mini-batch, then sliced per micro-batch, which makes
 * gradient accumulation over micro-batches equal to the full-batch gradient, for padded and packed rows alike.
 *
 * - `token-mean`: w = m / (loss tokens in the batch)
 * - `seq-mean-token-sum`: w = m / (sequences)
 * - `seq-mean-token-mean`: w = m / (loss tokens of the token's sequence x sequences)
 * - `seq-mean-token-sum-norm`: w = m / horizon, the maximum response length (Dr. GRPO); verl divides the
 *   sum over all sequences by it, without dividing by the number of sequences.
 */
export type LossAggregation =
  | 'token-mean'
  | 'seq-mean-token-sum'
  | 'seq-mean-token-mean'
  | 'seq-mean-token-sum-norm';

export const LOSS_AGGREGATIONS: readonly LossAggregation[] = [
  'token-mean',
  'seq-mean-token-sum',
  'seq-mean-token-mean',
  'seq-mean-token-sum-norm',
];

/** Which tokens count and which sequence each belongs to, row-major over [rows, columns]. */
export interface TokenLayout {
  rows: number;
  columns: number;
  /** 1 where the token contributes to the loss, 0 elsewhere. */
  lossMask: ArrayLike<number>;
  /**
   * Sequence index of every token for packed rows (several sequences per row; negative = padding). Omit for
   * padded rows, where each row is one sequence.
   */
  sequenceIds?: ArrayLike<number>;
}

export interface AggregationOptions {
  /**
   * The divisor of `seq-mean-token-sum-norm`: the maximum response length of the run. Default: the number of
   * columns. Keep it constant across steps, or the loss scale drifts with the batch's padding.
   */
  horizon?: number;
}

/** The weights w (row-major, rows x columns) with loss = sum_t w_t L_t for the given aggregation mode. */
export function aggregationWeights(
  layout: TokenLayout,
  mode: LossAggregation,
  options: AggregationOptions = {},
): Float32Array {
  const { rows, columns, lossMask, sequenceIds } = layout;
  const size = rows * columns;
  if (lossMask.length !== size) {
    throw new Error(
      `aggregationWeights: lossMask has ${lossMask.length} entries, expected rows x columns = ${size}`,
    );
  }
  if (sequenceIds !== undefined && sequenceIds.length !== size) {
    throw new Error(`aggregationWeights: sequenceIds has ${sequenceIds.length} entries, expected ${size}`);
  }
  if (!LOSS_AGGREGATIONS.includes(mode)) {
    throw new Error(
      `aggregationWeights: unknown aggregation "${mode}"; use one of ${LOSS_AGGREGATIONS.join(', ')}`,
    );
  }
  const sequenceOf = (index: number): number =>
    sequenceIds === undefined ? Math.floor(index / columns) : sequenceIds[index]!;
  const tokensPerSequence = new Map<number, number>();
  let lossTokens = 0;
  for (let index = 0; index < size; index++) {
    const sequence = sequenceOf(index);
    if (sequence < 0) continue;
    const counts = lossMask[index]!;
    if (counts !== 0 && counts !== 1) {
      throw new Error(`aggregationWeights: lossMask[${index}] is ${counts}; a loss mask holds 0 or 1`);
    }
    tokensPerSequence.set(sequence, (tokensPerSequence.get(sequence) ?? 0) + counts);
    lossTokens += counts;
  }
  const sequences = tokensPerSequence.size;
  const horizon = options.horizon ?? columns;
  if (!(horizon > 0)) throw new Error(`aggregationWeights: options.horizon must be positive, got ${horizon}`);

  const weights = new Float32Array(size);
  if (lossTokens === 0) return weights;
  for (let index = 0; index < size; index++) {
    const sequence = sequenceOf(index);
    if (lossMask[index] === 0 || sequence < 0) continue;
    weights[index] =
      mode === 'token-mean'
        ? 1 / lossTokens
        : mode === 'seq-mean-token-sum'
          ? 1 / sequences
          : mode === 'seq-mean-token-mean'
            ? 1 / (tokensPerSequence.get(sequence)! * sequences)
            : 1 / horizon;
  }
  return weights;
}
