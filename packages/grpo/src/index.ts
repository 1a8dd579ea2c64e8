export type {
  OptionsSchema,
  RawOptions,
  RegisterOptions,
  RegisterWithSchema,
  StandardSchemaV1,
} from '@taorl/plugin-registry';
export {
  type BackendAttempt,
  type BackendChoice,
  type BackendReport,
  DEFAULT_BACKEND_ORDER,
  type InitBackendOptions,
  initBackend,
} from './backend/init-backend';
export {
  type CorrectionWeights,
  REJECTION_MODES,
  type RejectionMode,
  type RejectionRule,
  type ResolvedRolloutCorrection,
  type RolloutCorrectionOptions,
  resolveRolloutCorrection,
} from './correction/correction-options';
export {
  type CorrectionInput,
  type CorrectionMetrics,
  type CorrectionResult,
  rolloutCorrection,
} from './correction/rollout-correction';
export {
  type TokenLogProbsAndEntropy,
  type TokenLogProbsOptions,
  tokenLogProbsAndEntropy,
} from './logprobs/token-log-probs';
export {
  type AggregationOptions,
  aggregationWeights,
  LOSS_AGGREGATIONS,
  type LossAggregation,
  type TokenLayout,
} from './loss/aggregation';
export { cispoLoss } from './loss/cispo';
export { gspoLoss } from './loss/gspo';
export { type KlPenalty, type KlPenaltyKind, klPenalty } from './loss/kl-penalty';
export { clampedLogRatio } from './loss/log-ratio';
export { maskedFraction, maskedMean } from './loss/masked-mean';
export { type PolicyLossInput, type PolicyLossResult, policyLoss } from './loss/policy-loss';
export {
  type PolicyLossConfig,
  type ResolvedPolicyLossConfig,
  resolvePolicyLossConfig,
} from './loss/policy-loss-config';
export {
  getPolicyLoss,
  type PolicyLossContext,
  type PolicyLossFactory,
  type PolicyLossFn,
  type PolicyLossTerms,
  type PolicyLossTraits,
  policyLossNames,
  registerPolicyLoss,
} from './loss/policy-loss-registry';
export { type SftLossInput, sftLoss } from './loss/sft-loss';
export { vanillaPolicyLoss } from './loss/vanilla';
export { linear, matMul2d } from './ops/linear';
export { stopGradient } from './ops/stop-gradient';
export { transpose2d } from './ops/transpose2d';
export { AdamW, type AdamWConfig, type AdamWState } from './optim/adamw';
export { clipScale, globalGradientNorm } from './optim/gradient-norm';
export { type GuardedStep, type GuardedStepInput, guardedStep } from './optim/guarded-step';
export { type LearningRateSchedule, learningRateAt } from './optim/lr-schedule';
export {
  GrpoUpdater,
  type GrpoUpdaterOptions,
  type MicroBatchGradients,
  type StepMetrics,
  type UpdateReport,
} from './update/grpo-updater';
export {
  type GradientSettings,
  type MicroBatch,
  type MicroBatchGradient,
  microBatchGradient,
  type PolicyModel,
} from './update/micro-batch-gradient';
export type { TargetAlignedBatch, UpdateBatch } from './update/update-batch';
