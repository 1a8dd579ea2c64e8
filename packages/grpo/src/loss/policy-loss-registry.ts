import { createRegistry, type RawOptions, type Registry, registerFunction } from '@taorl/plugin-registry';
import type * as tf from '@tensorflow/tfjs';
import type { LossAggregation } from './aggregation';
import type { ResolvedPolicyLossConfig } from './policy-loss-config';

/** What a policy loss sees: all [B, T]; only logProbs carries a gradient. */
export interface PolicyLossContext {
  /** log pi_theta of the sampled tokens, differentiable. */
  logProbs: tf.Tensor2D;
  /** log pi_old of the same tokens (the rollout or the start of the PPO epochs), constant. */
  oldLogProbs: tf.Tensor2D;
  advantages: tf.Tensor2D;
  /** 1 where the token is trained on, as float32. */
  lossMask: tf.Tensor2D;
  config: ResolvedPolicyLossConfig;
  /**
   * x [B, T] -> at every token, the mean of x over the loss tokens of the token's sequence (a row, or a packed
   * sequence of a row); 0 where a sequence has no loss token. Differentiable; for sequence-level losses (GSPO).
   */
  sequenceMean: (x: tf.Tensor2D) => tf.Tensor2D;
}

/** A policy loss's result before aggregation. */
export interface PolicyLossTerms {
  /** L_t for every token, [B, T]; policyLoss aggregates it with the token weights (masked tokens weigh 0). */
  perToken: tf.Tensor2D;
  /** Scalar diagnostics (fractions over loss tokens), merged into policyLoss's metrics under these names. */
  metrics: Record<string, tf.Scalar>;
}

/**
 * What a loss defines about the shared config fields: its own defaults for the clip range, and the aggregation
 * its definition requires (a config naming another aggregation is an error, not a silent override).
 */
export interface PolicyLossTraits {
  /** Default eps_low when the config leaves clipLow out. */
  readonly clipLow?: number;
  /** Default eps_high when the config leaves clipHigh out. */
  readonly clipHigh?: number;
  /** The aggregation the loss is defined with; config.aggregation must be left out or equal it. */
  readonly aggregation?: LossAggregation;
}

/**
 * A policy loss (verl's register_policy_loss): one function of the context, no hidden state; optionally with
 * `traits`, its defaults for the shared config fields.
 */
export type PolicyLossFn = ((context: PolicyLossContext) => PolicyLossTerms) & {
  readonly traits?: PolicyLossTraits;
};

/**
 * The policy losses selectable by name, PolicyLossConfig.name (docs/plug-ins.md describes the contract every
 * taorl registry follows). The built-ins (vanilla, cispo) register themselves where they are defined.
 */
export const policyLossRegistry: Registry<PolicyLossFn> = createRegistry<PolicyLossFn>(
  'grpo',
  'policy loss',
  {
    callable: true,
  },
);

/** Builds a policy loss from its own options (PolicyLossConfig.options). */
export type PolicyLossFactory = (options: RawOptions) => PolicyLossFn;

/**
 * Adds a policy loss under `name`, selectable with PolicyLossConfig.name: `registerPolicyLoss(name, factory)`,
 * where `factory(options)` returns the loss and checks its own options (PolicyLossConfig.options), or with
 * `{ schema }`, a zod (any Standard Schema) schema of those options. A second registration of a name is an error
 * unless `{ replace: true }` is given.
 *
 * @function
 */
export const registerPolicyLoss = registerFunction(policyLossRegistry);

/** The policy loss registered under `name`, built with its own `options`. */
export function getPolicyLoss(name: string, options: RawOptions = {}): PolicyLossFn {
  return policyLossRegistry.create(name, options);
}

/** Names of all registered policy losses. */
export function policyLossNames(): string[] {
  return policyLossRegistry.names();
}
