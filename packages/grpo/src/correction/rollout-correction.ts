import {
  type RejectionRule,
  type ResolvedRolloutCorrection,
  type RolloutCorrectionOptions,
  resolveRolloutCorrection,
} from './correction-options';

/**
 * Rollout correction (Yao et al. 2025, "Your efficient RL framework secretly brings you off-policy RL training";
 * verl's, verl-project/verl@1dda039 verl/trainer/ppo/rollout_corr_helper.py, decoupled mode). The rollouts come
 * from an engine whose probabilities differ from the trainer's; pi_old is computed by the trainer. With
 * x_t = log pi_old(y_t) - log pi_rollout(y_t) (trainer over engine) clamped to +-20:
 *   weights  r = e^x_t per token (`token`) or e^(sum_t x_t) per sequence (`sequence`); TIS: w = min(r, upper);
 *            IcePop (`"lower_upper"`): w = r inside [lower, upper], else 0; batchNormalize: w / mean(w) over the
 *            loss tokens (token) or the sequences with loss tokens (sequence)
 *   rejection each mode's statistic of k1 = x, k2 = x^2 / 2, k3 = e^x - 1 - x per token, or its sum, mean or max
 *            over the sequence; k1 kept in [log lower, log upper], k2 / k3 at most upper; chained modes all pass
 * Rejected tokens leave the loss and its normaliser. Plain data in, float64 arithmetic.
 */

/** Aligned per-token data of a batch, row-major [rows, columns]. */
export interface CorrectionInput {
  rows: number;
  columns: number;
  lossMask: ArrayLike<number>;
  /** log pi_old computed by the trainer. */
  oldLogProbs: ArrayLike<number>;
  /** log-probs the rollout engine reported for the same tokens. */
  rolloutLogProbs: ArrayLike<number>;
  /** Packed rows: sequence index per position (negative = padding); omitted: one sequence per row. */
  sequenceIds?: ArrayLike<number>;
}

/** The mismatch between engine and trainer, over the loss tokens before rejection. */
export interface CorrectionMetrics {
  /** k3 estimate of KL(engine || trainer): mean of r - log r - 1 (verl rollout_corr/k3_kl). */
  k3Kl: number;
  /** mean of log pi_rollout - log pi_old (verl rollout_corr/kl). */
  kl: number;
  /** Mean and maximum of the untruncated ratio at the weights' level (per token or per sequence). */
  ratioMean: number;
  ratioMax: number;
  /** Mean of the weights after truncation or the band, before batchNormalize (verl rollout_is_mean); 1 for `none`. */
  weightMean: number;
  /** What batchNormalize divided by (verl rollout_is_batch_norm_factor); 1 when off. */
  batchNormFactor: number;
  /** Share of loss tokens whose weight was truncated (TIS) or zeroed outside the band (IcePop, verl rollout_is_oob_ratio). */
  truncatedShare: number;
  /** Share of loss tokens that rejection masked (verl rollout_rs_masked_fraction). */
  maskedShare: number;
  /** Share of all sequences, with loss tokens or not, that lost a token to rejection (rollout_rs_seq_masked_fraction). */
  maskedSequenceShare: number;
}

export interface CorrectionResult {
  /** Per-token weights (0 off the loss mask; 1 everywhere on it when weights are `none`). */
  weights: Float32Array;
  /** The loss mask with rejected tokens set to 0. */
  lossMask: Float32Array;
  metrics: CorrectionMetrics;
}

/** Exponents are clamped to +-20 before exp, as verl's SAFETY_BOUND. */
const SAFETY_BOUND = 20;
const clampLog = (x: number) => Math.min(SAFETY_BOUND, Math.max(-SAFETY_BOUND, x));

/** Per sequence: the sum of its raw log-ratios (the sequence weight) and its k-statistics over its loss tokens. */
interface SequenceStats {
  logRatio: number;
  tokens: number;
  sum: { k1: number; k2: number; k3: number };
  max: { k2: number; k3: number };
}

const kStats = (x: number) => ({ k1: x, k2: (x * x) / 2, k3: Math.exp(x) - 1 - x });

/** The statistic a rejection mode compares with its bounds, at one token of a sequence. */
function statistic(rule: RejectionRule, token: ReturnType<typeof kStats>, sequence: SequenceStats): number {
  const k = rule.mode.slice(-2) as 'k1' | 'k2' | 'k3';
  if (rule.mode.startsWith('token_')) return token[k];
  if (rule.mode.startsWith('seq_sum_')) return sequence.sum[k];
  if (rule.mode.startsWith('seq_mean_')) return sequence.sum[k] / sequence.tokens;
  return sequence.max[k as 'k2' | 'k3'];
}

function passes(rule: RejectionRule, value: number): boolean {
  if (rule.lower === null) return value <= rule.upper;
  return value >= Math.log(rule.lower) && value <= Math.log(rule.upper);
}

/**
 * The weights, the rejection mask and the mismatch metrics of one batch (see the module comment). Throws naming
 * the field when an array has the wrong length or a log-prob on the loss mask is not finite.
 */
export function rolloutCorrection(
  input: CorrectionInput,
  options: RolloutCorrectionOptions = {},
): CorrectionResult {
  return correctWith(input, resolveRolloutCorrection(options));
}

function correctWith(input: CorrectionInput, settings: ResolvedRolloutCorrection): CorrectionResult {
  const { rows, columns, lossMask, oldLogProbs, rolloutLogProbs, sequenceIds } = input;
  const size = rows * columns;
  for (const [field, values] of [
    ['lossMask', lossMask],
    ['oldLogProbs', oldLogProbs],
    ['rolloutLogProbs', rolloutLogProbs],
    ['sequenceIds', sequenceIds],
  ] as const) {
    if (values !== undefined && values.length !== size) {
      throw new Error(
        `rolloutCorrection: ${field} has ${values.length} entries, expected rows x columns = ${size}`,
      );
    }
  }
  const sequenceOf = (index: number) =>
    sequenceIds === undefined ? Math.floor(index / columns) : sequenceIds[index]!;
  const onLoss = (index: number) => lossMask[index] === 1 && sequenceOf(index) >= 0;
  const allSequences = new Set<number>();
  const logRatio = new Float64Array(size);
  const sequences = new Map<number, SequenceStats>();
  for (let index = 0; index < size; index++) {
    if (sequenceOf(index) >= 0) allSequences.add(sequenceOf(index));
    if (!onLoss(index)) continue;
    for (const [field, values] of [
      ['oldLogProbs', oldLogProbs],
      ['rolloutLogProbs', rolloutLogProbs],
    ] as const) {
      if (!Number.isFinite(values[index]!)) {
        throw new Error(
          `rolloutCorrection: ${field}[${index}] (row ${Math.floor(index / columns)}, column ${index % columns}) is ${values[index]} on a loss token`,
        );
      }
    }
    logRatio[index] = oldLogProbs[index]! - rolloutLogProbs[index]!;
    const k = kStats(clampLog(logRatio[index]!));
    const stats = sequences.get(sequenceOf(index)) ?? {
      logRatio: 0,
      tokens: 0,
      sum: { k1: 0, k2: 0, k3: 0 },
      max: { k2: -Infinity, k3: -Infinity },
    };
    stats.logRatio += logRatio[index]!;
    stats.tokens += 1;
    stats.sum.k1 += k.k1;
    stats.sum.k2 += k.k2;
    stats.sum.k3 += k.k3;
    stats.max.k2 = Math.max(stats.max.k2, k.k2);
    stats.max.k3 = Math.max(stats.max.k3, k.k3);
    sequences.set(sequenceOf(index), stats);
  }

  const { upper, lower } = settings.threshold;
  const perSequence = settings.weights === 'sequence';
  const rawWeight = (index: number) =>
    Math.exp(clampLog(perSequence ? sequences.get(sequenceOf(index))!.logRatio : logRatio[index]!));
  const weights = new Float64Array(size);
  const kept = new Float32Array(size);
  const rejectedSequences = new Set<number>();
  let [tokens, k3, kl, ratioSum, ratioMax, weightSum, truncated, masked] = [0, 0, 0, 0, 0, 0, 0, 0];
  for (let index = 0; index < size; index++) {
    if (!onLoss(index)) continue;
    tokens++;
    const x = logRatio[index]!;
    k3 += Math.exp(clampLog(x)) - x - 1;
    kl -= x;
    const ratio = rawWeight(index);
    ratioSum += ratio;
    ratioMax = Math.max(ratioMax, ratio);
    let weight = 1;
    if (settings.weights !== 'none') {
      const outside = lower === null ? ratio > upper : ratio < lower || ratio > upper;
      weight = lower === null ? Math.min(ratio, upper) : outside ? 0 : ratio;
      if (outside) truncated++;
    }
    weights[index] = weight;
    weightSum += weight;
    const token = kStats(clampLog(x));
    const sequence = sequences.get(sequenceOf(index))!;
    if (settings.rejection.every((rule) => passes(rule, statistic(rule, token, sequence)))) {
      kept[index] = 1;
    } else {
      masked++;
      rejectedSequences.add(sequenceOf(index));
    }
  }
  /** The batch mean verl divides by: over loss tokens, or over sequences (one weight each); 1 when not above 1e-8. */
  const weightsMean = (): number => {
    let [sum, count] = [0, 0];
    const seen = new Set<number>();
    for (let index = 0; index < size; index++) {
      if (!onLoss(index) || (perSequence && seen.has(sequenceOf(index)))) continue;
      seen.add(sequenceOf(index));
      sum += weights[index]!;
      count++;
    }
    const mean = count === 0 ? 0 : sum / count;
    return mean > 1e-8 ? mean : 1;
  };
  const batchNormFactor = settings.batchNormalize && settings.weights !== 'none' ? weightsMean() : 1;
  const share = (count: number, of: number) => (of === 0 ? 0 : count / of);
  return {
    weights: Float32Array.from(weights, (w) => w / batchNormFactor),
    lossMask: kept,
    metrics: {
      k3Kl: share(k3, tokens),
      kl: share(kl, tokens),
      ratioMean: share(ratioSum, tokens),
      ratioMax,
      weightMean: share(weightSum, tokens),
      batchNormFactor,
      truncatedShare: share(truncated, tokens),
      maskedShare: share(masked, tokens),
      maskedSequenceShare: share(rejectedSequences.size, allSequences.size),
    },
  };
}
