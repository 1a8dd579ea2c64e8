/**
 * The rollout correction's options as verl spells them (verl-project/verl@1dda039
 * verl/trainer/ppo/rollout_corr_helper.py: rollout_is, rollout_is_threshold, rollout_is_batch_normalize,
 * rollout_rs, rollout_rs_threshold), parsed by the rules of its _parse_rollout_is_threshold and
 * _parse_rollout_rs_thresholds; every error names the option.
 */

/** Which importance weights: per token (TIS), per sequence (product of token ratios), or none (metrics only). */
export type CorrectionWeights = 'token' | 'sequence' | 'none';

/**
 * verl's rejection modes: a statistic of the log-ratio x = log(pi_old / pi_rollout) per token (`token_`), summed,
 * averaged or maxed over the sequence (`seq_sum_`, `seq_mean_`, `seq_max_`): k1 = the ratio (a band), k2 =
 * x^2 / 2, k3 = e^x - 1 - x (each at most an upper bound).
 */
export const REJECTION_MODES = [
  'token_k1',
  'token_k2',
  'token_k3',
  'seq_sum_k1',
  'seq_sum_k2',
  'seq_sum_k3',
  'seq_mean_k1',
  'seq_mean_k2',
  'seq_mean_k3',
  'seq_max_k2',
  'seq_max_k3',
] as const;
export type RejectionMode = (typeof REJECTION_MODES)[number];

export interface RolloutCorrectionOptions {
  /** verl rollout_is. Default `sequence` (verl's RolloutCorrectionConfig default); Yao et al.'s TIS is `token`. */
  weights?: CorrectionWeights;
  /**
   * verl rollout_is_threshold: a number (or a numeric string) truncates the weights at it (TIS); a
   * `"lower_upper"` string (e.g. `"0.5_5"`) is IcePop's band: weights outside [lower, upper] become 0. Default 2.
   */
  threshold?: number | string;
  /** verl rollout_is_batch_normalize: divide the weights by their batch mean (per token or per sequence). Default false. */
  batchNormalize?: boolean;
  /** verl rollout_rs: `none` (default) or rejection modes joined by commas, all of which a token must pass. */
  rejection?: string;
  /**
   * verl rollout_rs_threshold: one threshold for every mode, or one per mode joined by commas. k1 modes: `"lower_upper"`
   * or an upper bound (lower = 1 / upper); k2 / k3 modes: an upper bound. Required with a rejection.
   */
  rejectionThreshold?: number | string;
}

/** One rejection mode with its bounds; `lower` only for k1 modes. */
export interface RejectionRule {
  mode: RejectionMode;
  upper: number;
  lower: number | null;
}

export interface ResolvedRolloutCorrection {
  weights: CorrectionWeights;
  /** The weights' threshold: `lower` null truncates at `upper` (TIS); a number zeroes weights outside the band. */
  threshold: { upper: number; lower: number | null };
  batchNormalize: boolean;
  /** The rejection modes in order, duplicates removed; empty = no rejection. */
  rejection: RejectionRule[];
}

const KNOWN = ['weights', 'threshold', 'batchNormalize', 'rejection', 'rejectionThreshold'];
const WEIGHTS: readonly CorrectionWeights[] = ['token', 'sequence', 'none'];

function fail(field: string, message: string): never {
  throw new Error(`rolloutCorrection: option '${field}' ${message}`);
}

/** A positive finite number from a number or a numeric string; `where` says which part of the option it is. */
function positive(field: string, text: string | number, where: string): number {
  const value = typeof text === 'number' ? text : text.trim() === '' ? Number.NaN : Number(text);
  if (!(Number.isFinite(value) && value > 0)) {
    fail(field, `must be a finite number > 0${where}, got ${JSON.stringify(text)}`);
  }
  return value;
}

/** `"lower_upper"` or an upper bound alone (then lower = `lowerOf(upper)`), with lower <= upper. */
function band(field: string, spec: string | number, lowerOf: (upper: number) => number | null) {
  if (typeof spec === 'string' && spec.includes('_')) {
    const [lowerText, upperText] = [spec.slice(0, spec.indexOf('_')), spec.slice(spec.indexOf('_') + 1)];
    const lower = positive(field, lowerText, ` in its lower bound of ${JSON.stringify(spec)}`);
    const upper = positive(field, upperText, ` in its upper bound of ${JSON.stringify(spec)}`);
    if (lower > upper)
      fail(field, `has lower bound ${lower} above upper bound ${upper} in ${JSON.stringify(spec)}`);
    return { lower, upper };
  }
  const upper = positive(field, spec, '');
  return { lower: lowerOf(upper), upper };
}

function rejectionRules(rejection: unknown, spec: unknown): RejectionRule[] {
  if (typeof rejection !== 'string')
    fail('rejection', `must be 'none' or modes joined by commas, got ${JSON.stringify(rejection)}`);
  const named = rejection
    .split(',')
    .map((mode) => mode.trim())
    .filter((mode) => mode !== '');
  if (named.length === 0) fail('rejection', "must be 'none' or name at least one mode");
  if (named.length === 1 && named[0] === 'none') {
    if (spec !== undefined) fail('rejectionThreshold', "is set but option 'rejection' is 'none'");
    return [];
  }
  const modes: RejectionMode[] = [];
  for (const mode of named) {
    if (!(REJECTION_MODES as readonly string[]).includes(mode)) {
      fail(
        'rejection',
        `has unknown mode ${JSON.stringify(mode)} (known: none, ${REJECTION_MODES.join(', ')})`,
      );
    }
    if (!modes.includes(mode as RejectionMode)) modes.push(mode as RejectionMode);
  }
  if (spec === undefined)
    fail('rejectionThreshold', `is required with rejection ${JSON.stringify(rejection)}`);
  if (typeof spec !== 'number' && typeof spec !== 'string') {
    fail('rejectionThreshold', `must be a number or a string, got ${JSON.stringify(spec)}`);
  }
  const specs =
    typeof spec === 'number'
      ? [spec]
      : spec
          .split(',')
          .map((part) => part.trim())
          .filter((part) => part !== '');
  if (specs.length !== 1 && specs.length !== modes.length) {
    fail(
      'rejectionThreshold',
      `needs one threshold for all modes or one per mode (${modes.length}), got ${specs.length}`,
    );
  }
  return modes.map((mode, i) => {
    const part = specs[specs.length === 1 ? 0 : i]!;
    if (mode.endsWith('k1')) return { mode, ...band('rejectionThreshold', part, (upper) => 1 / upper) };
    if (typeof part === 'string' && part.includes('_')) {
      fail(
        'rejectionThreshold',
        `for mode ${mode} must be one upper bound without '_', got ${JSON.stringify(part)}`,
      );
    }
    return { mode, upper: positive('rejectionThreshold', part, ` for mode ${mode}`), lower: null };
  });
}

/** Fills the defaults and rejects unknown or out-of-range options by name. */
export function resolveRolloutCorrection(options: RolloutCorrectionOptions = {}): ResolvedRolloutCorrection {
  for (const key of Object.keys(options)) {
    if (!KNOWN.includes(key)) fail(key, `is unknown (known options: ${KNOWN.join(', ')})`);
  }
  const weights = options.weights ?? 'sequence';
  if (!WEIGHTS.includes(weights))
    fail('weights', `must be ${WEIGHTS.join(' | ')}, got ${JSON.stringify(weights)}`);
  const threshold = options.threshold ?? 2;
  if (typeof threshold !== 'number' && typeof threshold !== 'string') {
    fail('threshold', `must be a number or a "lower_upper" string, got ${JSON.stringify(threshold)}`);
  }
  const batchNormalize = options.batchNormalize ?? false;
  if (typeof batchNormalize !== 'boolean') {
    fail('batchNormalize', `must be a boolean, got ${JSON.stringify(batchNormalize)}`);
  }
  return {
    weights,
    threshold: band('threshold', threshold, () => null),
    batchNormalize,
    rejection: rejectionRules(options.rejection ?? 'none', options.rejectionThreshold),
  };
}
