import { LOSS_AGGREGATIONS, type LossAggregation } from './aggregation';
import { type KlPenaltyKind, klPenalty } from './kl-penalty';
import { getPolicyLoss } from './policy-loss-registry';

/** Configuration of {@link policyLoss}; defaults from ALGORITHMS.md section 5. */
export interface PolicyLossConfig {
  /** Registered policy loss (registerPolicyLoss). Default `vanilla`, the clipped PPO/GRPO surrogate. */
  name?: string;
  /**
   * The named loss's own options, checked by the loss (its factory or schema); the built-in losses take none.
   * Default {}.
   */
  options?: Readonly<Record<string, unknown>>;
  /** eps_low: the ratio is clipped below at 1 - clipLow. Default 0.2 (the loss's own default where it has one: gspo 3e-4). */
  clipLow?: number;
  /** eps_high: the ratio is clipped above at 1 + clipHigh (clip-higher, DAPO). Default 0.28 (gspo: 4e-4). */
  clipHigh?: number;
  /** c of dual-clip PPO: for A < 0 the loss is at most -A c. Default 3; null turns it off. */
  dualClip?: number | null;
  /** The log-ratio is clamped to [-bound, bound] before exp. Default 20. */
  logRatioBound?: number;
  /**
   * Default `token-mean`, or the aggregation the loss is defined with (gspo: `seq-mean-token-mean`, which no
   * other value may replace). Ignored when the input carries tokenWeights.
   */
  aggregation?: LossAggregation;
  /** Divisor of `seq-mean-token-sum-norm` (maximum response length). Default: the number of columns. */
  horizon?: number;
  /** Coefficient of the KL penalty to the reference policy. Default 0 (off). */
  klCoef?: number;
  /** KL estimator. Default `low_var_kl` (k3). */
  klKind?: KlPenaltyKind;
  /** Coefficient of the entropy bonus (the loss subtracts entropyCoef x entropy). Default 0 (off). */
  entropyCoef?: number;
}

export type ResolvedPolicyLossConfig = Required<Omit<PolicyLossConfig, 'horizon'>> & {
  horizon: number | undefined;
};

/**
 * Fills the defaults (the named loss's own first, from its traits) and rejects out-of-range fields by name; builds
 * the named loss once, so an unknown name or a bad option of the loss fails here too.
 */
export function resolvePolicyLossConfig(config: PolicyLossConfig = {}): ResolvedPolicyLossConfig {
  const name = config.name ?? 'vanilla';
  const traits = getPolicyLoss(name, config.options ?? {}).traits ?? {};
  if (
    traits.aggregation !== undefined &&
    config.aggregation !== undefined &&
    config.aggregation !== traits.aggregation
  ) {
    throw new Error(
      `policy loss config.aggregation is '${config.aggregation}', but policy loss '${name}' is defined with ` +
        `'${traits.aggregation}'; leave aggregation out`,
    );
  }
  const resolved: ResolvedPolicyLossConfig = {
    name,
    options: config.options ?? {},
    clipLow: config.clipLow ?? traits.clipLow ?? 0.2,
    clipHigh: config.clipHigh ?? traits.clipHigh ?? 0.28,
    dualClip: config.dualClip === undefined ? 3 : config.dualClip,
    logRatioBound: config.logRatioBound ?? 20,
    aggregation: config.aggregation ?? traits.aggregation ?? 'token-mean',
    horizon: config.horizon,
    klCoef: config.klCoef ?? 0,
    klKind: config.klKind ?? 'low_var_kl',
    entropyCoef: config.entropyCoef ?? 0,
  };
  const fail = (field: string, expected: string, value: unknown): never => {
    throw new Error(`policy loss config.${field} must be ${expected}, got ${String(value)}`);
  };
  if (!(resolved.clipLow >= 0 && resolved.clipLow < 1)) fail('clipLow', 'in [0, 1)', resolved.clipLow);
  if (!(resolved.clipHigh >= 0 && Number.isFinite(resolved.clipHigh)))
    fail('clipHigh', 'a finite number >= 0', resolved.clipHigh);
  if (resolved.dualClip !== null && !(resolved.dualClip > 1 && Number.isFinite(resolved.dualClip))) {
    fail('dualClip', 'a finite number > 1 or null', resolved.dualClip);
  }
  if (!(resolved.logRatioBound > 0)) fail('logRatioBound', 'positive', resolved.logRatioBound);
  if (!LOSS_AGGREGATIONS.includes(resolved.aggregation)) {
    fail('aggregation', `one of ${LOSS_AGGREGATIONS.join(', ')}`, resolved.aggregation);
  }
  if (resolved.horizon !== undefined && !(resolved.horizon > 0))
    fail('horizon', 'positive', resolved.horizon);
  if (!(resolved.klCoef >= 0 && Number.isFinite(resolved.klCoef)))
    fail('klCoef', 'a finite number >= 0', resolved.klCoef);
  if (!Number.isFinite(resolved.entropyCoef)) fail('entropyCoef', 'a finite number', resolved.entropyCoef);
  klPenalty(resolved.klKind);
  return resolved;
}
