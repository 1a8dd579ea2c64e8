import { assertFinite } from '../validate/finite';

/**
 * One RL batch as plain columnar data, row-major [rows, columns]. Every per-token array is aligned with
 * `tokens`: entry t describes token t (the logits at t - 1 predict it), as @taorl/data trajectories store
 * them, so the first token of a row or of a packed sequence can never be a loss token.
 */
export interface UpdateBatch {
  rows: number;
  columns: number;
  /** Token ids: prompt, response and tool output, padded (or packed) to `columns`. */
  tokens: Int32Array | readonly number[];
  /** 1 for tokens the policy generated and is trained on; 0 for prompt, tool output and padding. */
  lossMask: ArrayLike<number>;
  /** Per-token advantages; finite everywhere (0 where the mask is 0). */
  advantages: ArrayLike<number>;
  /**
   * log pi_old of each token (the rollout's). Omitted: computed from the current weights before the first
   * PPO epoch, which is exact when rollout and learner share the weights.
   */
  oldLogProbs?: ArrayLike<number>;
  /** log pi_ref of each token, needed when the loss has klCoef > 0. */
  refLogProbs?: ArrayLike<number>;
  /**
   * log-probs the rollout engine reported for each token, when they are not pi_old (the trainer computes pi_old):
   * the rollout correction (GrpoUpdaterOptions.rolloutCorrection) weighs tokens by pi_old / pi_rollout and
   * reports the mismatch. Required when the updater has a rolloutCorrection.
   */
  rolloutLogProbs?: ArrayLike<number>;
  /**
   * Packed rows: the sequence index of every token (negative = padding). The model receives them to mask
   * attention across sequences; aggregation uses them to find sequences. Omitted: one sequence per row.
   */
  sequenceIds?: Int32Array | readonly number[];
}

/**
 * The batch re-aligned to the model's outputs: position t holds the target token t + 1 and everything about
 * it; the last column has no target (mask 0). Arrays are fresh copies.
 */
export interface TargetAlignedBatch {
  rows: number;
  columns: number;
  inputs: Int32Array;
  targets: Int32Array;
  lossMask: Float32Array;
  advantages: Float32Array;
  oldLogProbs: Float32Array | undefined;
  refLogProbs: Float32Array | undefined;
  rolloutLogProbs: Float32Array | undefined;
  /** The rollout correction's per-token weights of the policy-gradient term; undefined = 1 everywhere. */
  importanceWeights: Float32Array | undefined;
  /** The model's sequence ids (aligned with inputs), packed rows only. */
  inputSequenceIds: Int32Array | undefined;
  /** Sequence of each target, for aggregation (packed rows only). */
  targetSequenceIds: Int32Array | undefined;
}

const WHERE = 'GrpoUpdater.update';

/** Validates a batch (naming the field and position of any problem) and aligns it to targets. */
export function alignToTargets(batch: UpdateBatch): TargetAlignedBatch {
  const { rows, columns } = batch;
  if (!(Number.isInteger(rows) && rows > 0 && Number.isInteger(columns) && columns > 1)) {
    throw new Error(
      `${WHERE}: batch.rows must be a positive integer and batch.columns an integer > 1, got ${rows} x ${columns}`,
    );
  }
  const size = rows * columns;
  const fields = [
    'tokens',
    'lossMask',
    'advantages',
    'oldLogProbs',
    'refLogProbs',
    'rolloutLogProbs',
    'sequenceIds',
  ] as const;
  for (const field of fields) {
    const values = batch[field];
    if (values !== undefined && values.length !== size) {
      throw new Error(
        `${WHERE}: batch.${field} has ${values.length} entries, expected rows x columns = ${size}`,
      );
    }
  }
  assertFinite(WHERE, 'batch.advantages', batch.advantages, columns);
  if (batch.oldLogProbs !== undefined) assertFinite(WHERE, 'batch.oldLogProbs', batch.oldLogProbs, columns);
  if (batch.refLogProbs !== undefined) assertFinite(WHERE, 'batch.refLogProbs', batch.refLogProbs, columns);

  const sequenceOf = (index: number) =>
    batch.sequenceIds === undefined ? Math.floor(index / columns) : batch.sequenceIds[index]!;
  for (let index = 0; index < size; index++) {
    const token = batch.tokens[index]!;
    if (!(Number.isInteger(token) && token >= 0)) {
      throw new Error(`${WHERE}: batch.tokens[${index}] is ${token}; token ids are integers >= 0`);
    }
    const mask = batch.lossMask[index]!;
    if (mask !== 0 && mask !== 1)
      throw new Error(`${WHERE}: batch.lossMask[${index}] is ${mask}; a loss mask holds 0 or 1`);
    const startsSequence = index % columns === 0 || sequenceOf(index) !== sequenceOf(index - 1);
    if (mask === 1 && (startsSequence || sequenceOf(index) < 0)) {
      throw new Error(
        `${WHERE}: batch.lossMask[${index}] (row ${Math.floor(index / columns)}, column ${index % columns}) is 1 on ${
          sequenceOf(index) < 0 ? 'padding' : 'the first token of a sequence, which no logit predicts'
        }`,
      );
    }
  }

  // Column c of the aligned batch describes token c + 1; the last column describes nothing.
  const shifted = (values: ArrayLike<number> | undefined, into: Float32Array | Int32Array) => {
    if (values === undefined) return undefined;
    for (let row = 0; row < rows; row++) {
      for (let column = 0; column + 1 < columns; column++) {
        into[row * columns + column] = values[row * columns + column + 1]!;
      }
    }
    return into;
  };
  const targetSequenceIds = shifted(batch.sequenceIds, new Int32Array(size).fill(-1)) as
    | Int32Array
    | undefined;
  return {
    rows,
    columns,
    inputs: Int32Array.from(batch.tokens),
    targets: shifted(batch.tokens, new Int32Array(size)) as Int32Array,
    lossMask: shifted(batch.lossMask, new Float32Array(size)) as Float32Array,
    advantages: shifted(batch.advantages, new Float32Array(size)) as Float32Array,
    oldLogProbs: shifted(batch.oldLogProbs, new Float32Array(size)) as Float32Array | undefined,
    refLogProbs: shifted(batch.refLogProbs, new Float32Array(size)) as Float32Array | undefined,
    rolloutLogProbs: shifted(batch.rolloutLogProbs, new Float32Array(size)) as Float32Array | undefined,
    importanceWeights: undefined,
    inputSequenceIds: batch.sequenceIds === undefined ? undefined : Int32Array.from(batch.sequenceIds),
    targetSequenceIds,
  };
}

/**
 * Splits `rows` rows into the fewest parts of at most `maxRows` rows each, equal in size give or take one row (the
 * larger parts first). Equal parts keep data-parallel workers, which take one micro-batch each, equally busy: a
 * fixed-size split of 46 rows by 32 would give one worker 32 rows and the other 14.
 */
export function equalRowRanges(rows: number, maxRows: number): { start: number; rows: number }[] {
  const parts = Math.ceil(rows / maxRows);
  const [size, larger] = [Math.floor(rows / parts), rows % parts];
  return Array.from({ length: parts }, (_, part) => ({
    start: part * size + Math.min(part, larger),
    rows: size + (part < larger ? 1 : 0),
  }));
}

/** Rows [start, start + count) of every array of an aligned batch. */
export function sliceRows(batch: TargetAlignedBatch, start: number, count: number): TargetAlignedBatch {
  const [from, to] = [start * batch.columns, (start + count) * batch.columns];
  const cut = <T extends Float32Array | Int32Array>(values: T | undefined): T | undefined =>
    values === undefined ? undefined : (values.slice(from, to) as T);
  return {
    rows: count,
    columns: batch.columns,
    inputs: cut(batch.inputs)!,
    targets: cut(batch.targets)!,
    lossMask: cut(batch.lossMask)!,
    advantages: cut(batch.advantages)!,
    oldLogProbs: cut(batch.oldLogProbs),
    refLogProbs: cut(batch.refLogProbs),
    rolloutLogProbs: cut(batch.rolloutLogProbs),
    importanceWeights: cut(batch.importanceWeights),
    inputSequenceIds: cut(batch.inputSequenceIds),
    targetSequenceIds: cut(batch.targetSequenceIds),
  };
}
