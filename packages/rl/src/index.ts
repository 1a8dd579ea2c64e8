// The portable entry: one TAO-RL step composed from the packages (rollouts, grading, reward shaping, filters,
// advantages, the update a caller passes in, the rollout policy's sync) and the metrics line it returns. No Node
// built-in and no TensorFlow.js, so it bundles for a browser; the GRPO update on a @taorl/model policy is
// @taorl/model's grpoUpdate.

export { type DecisionPointStats, decisionPointStats } from './decision-points';
export {
  localPolicySync,
  type PolicySync,
  type PolicySyncReport,
  type RolloutVersion,
} from './policy-sync';
export type { Problem } from './problem';
export { type PolicyUpdate, type RlStepContext, rlStep } from './rl-step';
export { type RolloutStats, rolloutStats } from './rollout-stats';
export type { EntropySource, RlStepMetrics, ServerStepStats, TimeSplit } from './step-metrics';
export { type TaskBreakdown, taskBreakdown } from './task-breakdown';
export { checkTemplateDrift, type TemplateDriftCheck, type TemplateDriftCount } from './template-drift';
export { assistantTurns, codeBlockRule, withTurnFacts } from './turn-facts';
export { nonFiniteRefusals, type UpdateStats } from './update-stats';
