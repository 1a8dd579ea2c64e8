/**
 * Rollout correction (Yao et al. 2025, "Your efficient RL framework secretly brings you off-policy RL training";
 * verl's rollout correction, volcengine/verl@0b4e2a8 verl/trainer/ppo/rollout_corr_helper.py, decoupled mode).
 * The rollouts come from an engine whose probabilities differ from the trainer's; pi_old is computed by the
 * trainer, and each token's policy-gradient term is weighted by the truncated importance ratio
 *   r_t = pi_old(y_t) / pi_rollout(y_t) (trainer over engine),   w_t = min(r_t, threshold)
 * per token (`token`, TIS) or with r = prod_t r_t per sequence (`sequence`). Rejection masks the tokens
 * (`token`) or whole sequences (`sequence`: prod_t r_t; `geometric`: exp(mean_t log r_t)) whose ratio leaves
 * [lower, upper]: they leave the loss and its normaliser. Plain data in, float64 arithmetic.
 */

/** Which importance weights: per token (TIS), per sequence (product of token ratios), or none (metrics only). */
export type CorrectionWeights = 'token' | 'sequence' | 'none';
/** What rejection compares with the band: each token's ratio, a sequence's product, its geometric mean; or off. */
export type CorrectionRejection = 'token' | 'sequence' | 'geometric' | 'none';

export interface RolloutCorrectionOptions {
  /** verl rollout_is. Default `sequence` (verl's RolloutCorrectionConfig default); Yao et al.'s TIS is `token`. */
  weights?: CorrectionWeights;
  /** verl rollout_is_threshold: weights are truncated at this value. Default 2. */
  threshold?: number;
  /** verl rollout_rs. Default `none`. */
  rejection?: CorrectionRejection;
  /** Upper end of the rejection band (verl rollout_rs_threshold). Default 2. */
  upper?: number;
  /** Lower end of the rejection band (verl rollout_rs_threshold_lower). Default 1 / upper. */
  lower?: number;
}

export type ResolvedRolloutCorrection = Required<RolloutCorrectionOptions>;

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
  /** Mean of the weights the loss uses (after truncation); 1 when weights are `none`. */
  weightMean: number;
  /** Share of loss tokens whose weight was truncated. */
  truncatedShare: number;
  /** Share of loss tokens, and of sequences with loss tokens, that rejection masked. */
  maskedShare: number;
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
const safeExp = (x: number) => Math.exp(Math.min(SAFETY_BOUND, Math.max(-SAFETY_BOUND, x)));

const WEIGHTS: readonly CorrectionWeights[] = ['token', 'sequence', 'none'];
const REJECTIONS: readonly CorrectionRejection[] = ['token', 'sequence', 'geometric', 'none'];
const KNOWN = ['weights', 'threshold', 'rejection', 'upper', 'lower'];

/** Fills the defaults and rejects unknown or out-of-range options by name. */
export function resolveRolloutCorrection(options: RolloutCorrectionOptions = {}): ResolvedRolloutCorrection {
  for (const key of Object.keys(options)) {
    if (!KNOWN.includes(key)) {
      throw new Error(`rolloutCorrection: unknown option '${key}' (known options: ${KNOWN.join(', ')})`);
    }
  }
  const upper = options.upper ?? 2;
  const resolved: ResolvedRolloutCorrection = {
    weights: options.weights ?? 'sequence',
    threshold: options.threshold ?? 2,
    rejection: options.rejection ?? 'none',
    upper,
    lower: options.lower ?? 1 / upper,
  };
  const fail = (field: string, expected: string, value: unknown): never => {
    throw new Error(`rolloutCorrection: option '${field}' must be ${expected}, got ${JSON.stringify(value)}`);
  };
  if (!WEIGHTS.includes(resolved.weights)) fail('weights', WEIGHTS.join(' | '), resolved.weights);
  if (!REJECTIONS.includes(resolved.rejection)) fail('rejection', REJECTIONS.join(' | '), resolved.rejection);
  if (
    !(typeof resolved.threshold === 'number' && resolved.threshold > 0 && Number.isFinite(resolved.threshold))
  )
    fail('threshold', 'a finite number > 0', resolved.threshold);
  if (!(typeof upper === 'number' && upper > 0 && Number.isFinite(upper)))
    fail('upper', 'a finite number > 0', upper);
  if (!(typeof resolved.lower === 'number' && resolved.lower > 0 && resolved.lower < upper))
    fail('lower', `a number in (0, upper = ${upper})`, resolved.lower);
  return resolved;
}

/**
 * The weights, the rejection mask and the mismatch metrics of one batch (see the module comment). Throws naming
 * the field when an array has the wrong length or a log-prob on the loss mask is not finite.
 */
export function rolloutCorrection(
  input: CorrectionInput,
  options: RolloutCorrectionOptions = {},
): CorrectionResult {
  const settings = resolveRolloutCorrection(options);
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
  const logRatio = new Float64Array(size);
  const sums = new Map<number, { logRatio: number; tokens: number }>();
  for (let index = 0; index < size; index++) {
    if (lossMask[index] !== 1 || sequenceOf(index) < 0) continue;
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
    const sum = sums.get(sequenceOf(index)) ?? { logRatio: 0, tokens: 0 };
    sum.logRatio += logRatio[index]!;
    sum.tokens += 1;
    sums.set(sequenceOf(index), sum);
  }

  const weights = new Float32Array(size);
  const kept = new Float32Array(size);
  const rejectedSequences = new Set<number>();
  let [tokens, k3, kl, ratioSum, ratioMax, weightSum, truncated, masked] = [0, 0, 0, 0, 0, 0, 0, 0];
  const ratioAt = (index: number, level: 'token' | 'sequence' | 'geometric') => {
    const sum = sums.get(sequenceOf(index))!;
    return level === 'token'
      ? safeExp(logRatio[index]!)
      : level === 'sequence'
        ? safeExp(sum.logRatio)
        : safeExp(sum.logRatio / sum.tokens);
  };
  for (let index = 0; index < size; index++) {
    if (lossMask[index] !== 1 || sequenceOf(index) < 0) continue;
    tokens++;
    const x = logRatio[index]!;
    k3 += safeExp(x) - x - 1;
    kl -= x;
    const ratio = ratioAt(index, settings.weights === 'sequence' ? 'sequence' : 'token');
    ratioSum += ratio;
    ratioMax = Math.max(ratioMax, ratio);
    const weight = settings.weights === 'none' ? 1 : Math.min(ratio, settings.threshold);
    if (settings.weights !== 'none' && ratio > settings.threshold) truncated++;
    const rejected =
      settings.rejection !== 'none' &&
      !(
        ratioAt(index, settings.rejection) >= settings.lower &&
        ratioAt(index, settings.rejection) <= settings.upper
      );
    if (rejected) {
      masked++;
      rejectedSequences.add(sequenceOf(index));
    } else {
      kept[index] = 1;
    }
    weights[index] = weight;
    weightSum += weight;
  }
  const share = (count: number, of: number) => (of === 0 ? 0 : count / of);
  return {
    weights,
    lossMask: kept,
    metrics: {
      k3Kl: share(k3, tokens),
      kl: share(kl, tokens),
      ratioMean: share(ratioSum, tokens),
      ratioMax,
      weightMean: share(weightSum, tokens),
      truncatedShare: share(truncated, tokens),
      maskedShare: share(masked, tokens),
      maskedSequenceShare: share(rejectedSequences.size, sums.size),
    },
  };
}
