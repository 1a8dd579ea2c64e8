import { createRegistry, type RawOptions, type Registry } from '@taorl/plugin-registry';
import type * as tf from '@tensorflow/tfjs';
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
}

/** A policy loss's result before aggregation. */
export interface PolicyLossTerms {
  /** L_t for every token, [B, T]; policyLoss aggregates it with the token weights (masked tokens weigh 0). */
  perToken: tf.Tensor2D;
  /** Scalar diagnostics (fractions over loss tokens), merged into policyLoss's metrics under these names. */
  metrics: Record<string, tf.Scalar>;
}

/** A policy loss (verl's register_policy_loss): one function of the context, no hidden state. */
export type PolicyLossFn = (context: PolicyLossContext) => PolicyLossTerms;

/**
 * The policy losses selectable by name, PolicyLossConfig.name (docs/plug-ins.md describes the contract every
 * taorl registry follows). The built-ins (vanilla, cispo) register themselves where they are defined.
 */
export const policyLossRegistry: Registry<PolicyLossFn> = createRegistry<PolicyLossFn>('grpo', 'policy loss');

/** Builds a policy loss from its own options (PolicyLossConfig.options). */
export type PolicyLossFactory = (options: RawOptions) => PolicyLossFn;

/**
 * Adds a policy loss under `name`, selectable with PolicyLossConfig.name: `registerPolicyLoss(name, factory)`,
 * where `factory(options)` returns the loss and checks its own options (PolicyLossConfig.options), or with
 * `{ schema }`, a zod (any Standard Schema) schema of those options. A second registration of a name is an error
 * unless `{ replace: true }` is given.
 */
export const registerPolicyLoss: Registry<PolicyLossFn>['register'] = policyLossRegistry.register;

/** The policy loss registered under `name`, built with its own `options`. */
export function getPolicyLoss(name: string, options: RawOptions = {}): PolicyLossFn {
  return policyLossRegistry.create(name, options);
}

/** Names of all registered policy losses. */
export function policyLossNames(): string[] {
  return policyLossRegistry.names();
}
