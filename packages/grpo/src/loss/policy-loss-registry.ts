import type * as tf from '@tensorflow/tfjs';
import { cispoLoss } from './cispo';
import type { ResolvedPolicyLossConfig } from './policy-loss-config';
import { vanillaPolicyLoss } from './vanilla';

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

/** A registered policy loss (verl's register_policy_loss): one function of the context, no hidden state. */
export type PolicyLossFn = (context: PolicyLossContext) => PolicyLossTerms;

const registry = new Map<string, PolicyLossFn>([
  ['vanilla', vanillaPolicyLoss],
  ['cispo', cispoLoss],
]);

/** Adds a policy loss under `name`, selectable with PolicyLossConfig.name. Refuses to replace an existing one. */
export function registerPolicyLoss(name: string, loss: PolicyLossFn): void {
  if (name.length === 0) throw new Error('registerPolicyLoss: the name is empty');
  if (registry.has(name)) throw new Error(`registerPolicyLoss: "${name}" is already registered`);
  registry.set(name, loss);
}

/** The policy loss registered under `name`. */
export function getPolicyLoss(name: string): PolicyLossFn {
  const loss = registry.get(name);
  if (loss === undefined) {
    throw new Error(`unknown policy loss "${name}"; registered: ${[...registry.keys()].join(', ')}`);
  }
  return loss;
}

/** Names of all registered policy losses. */
export function policyLossNames(): string[] {
  return [...registry.keys()];
}
