export type {
  OptionsSchema,
  RawOptions,
  RegisterOptions,
  RegisterWithSchema,
  StandardSchemaV1,
} from '@taorl/plugin-registry';
export { type AepoShaperOptions, aepoShaper } from './aepo';
export {
  type ComputeAdvantagesOptions,
  type ComputedAdvantages,
  computeAdvantages,
} from './compute-advantages';
export {
  chengShaper,
  type EntropyBonusOptions,
  type EntropyNormalisation,
  type TaoShaperOptions,
  taoShaper,
} from './entropy-bonus';
export {
  type AdvantageEstimatorFactory,
  advantageEstimatorNames,
  getAdvantageEstimator,
  registerAdvantageEstimator,
} from './estimator-registry';
export {
  type AdvantageEstimator,
  drGrpoEstimator,
  type GroupBaselineOptions,
  type GrpoOptions,
  grpoEstimator,
  rlooEstimator,
  type SingletonPolicy,
} from './estimators';
export { groupIndex } from './groups';
export { noShaper } from './no-shaper';
export { type OverlongOptions, overlongPenalty } from './overlong';
export { type PostToolInput, postToolMask } from './post-tool';
export { overlongShaper, type RewardShaper, type ShapedRewards, shapeRewards } from './reward-shaping';
export {
  type SequenceAdvantageDiagnostics,
  type SequenceAdvantageOptions,
  type SequenceAdvantages,
  sequenceAdvantages,
} from './sequence-advantages';
export {
  type EntropyShaperFactory,
  entropyShaperNames,
  getEntropyShaper,
  registerEntropyShaper,
} from './shaper-registry';
export type { EntropyShaper, ShapedAdvantages, ShapeOptions, ShapingDiagnostics } from './shaping';
export { tokenAdvantages } from './token-advantages';
export type {
  AdvantageLayout,
  GroupId,
  PostToolWindow,
  RewardedTrajectory,
  ShapingTrajectory,
  TokenAdvantages,
  ToolCallSpan,
  TrajectoryWithLossMask,
} from './types';
