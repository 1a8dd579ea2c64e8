export type {
  OptionsSchema,
  RawOptions,
  RegisterOptions,
  RegisterWithSchema,
  StandardSchemaV1,
} from '@taorl/plugin-registry';
export {
  ALL_CORRECT,
  ALL_WRONG,
  type AnswerDiscriminabilityOptions,
  answerDiscriminability,
  GROUP_TOO_SMALL,
} from './answer-discriminability';
export { type AnswerFormatFacts, answerFormatFacts } from './answer-format-facts';
export { composeFilters } from './compose';
export { type DynamicSamplingOptions, dynamicSampling, ZERO_STD } from './dynamic-sampling';
export {
  ALL_TOOL_CALLS_FAILED,
  type ExecutionValidityOptions,
  executionValidity,
  NO_TOOL_CALLS,
} from './execution-validity';
export { type OverlongFilterOptions, overlongFilter, TRUNCATED } from './overlong';
export { type FilterFactory, filterNames, getFilter, registerFilter } from './registry';
export {
  GROUP_BELOW_SIZE,
  type ResampleOnCorrectOptions,
  resampleOnCorrect,
  SURPLUS_CORRECT,
  SURPLUS_WRONG,
  WORLD_SIZE_REMAINDER,
} from './resample-on-correct';
export {
  answerFormatPenalty,
  TOOL_ERROR_SIGNALS,
  type ToolErrorSignal,
  toolErrorPenalty,
} from './roc-penalties';
export { type ToolAwareFilterOptions, toolAwareFilter } from './tool-aware';
export { INFRA_FAILURE_STATUS, isInfraFailure, TOOL_OUTAGE, toolOutage } from './tool-outage';
export { trajectoryFilter, type Verdict } from './trajectory-filter';
export type {
  DroppedTrajectory,
  Filter,
  FilterAction,
  FilterableToolCall,
  FilterableTrajectory,
  FilterMode,
  FilterResult,
  FilterStats,
  GroupId,
  GroupPassRate,
  MaskedTrajectory,
  PassRateReport,
} from './types';
export { VOID_TURN, type VoidTurnOptions, voidTurn } from './void-turn';
export { hasMarkdownCodeBlock, type TurnFacts, type VoidTurnRule, voidTurns } from './void-turns';
