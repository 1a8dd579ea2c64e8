// The portable entry: no Node built-in, directly or through a dependency, so rollouts run in browsers, workers,
// Deno and Bun as in Node. The HTTP client of the inference-server adapters (RemotePolicy) is in
// @taorl/rollout/node (src/node.ts), which imports what it shares with this entry from '@taorl/rollout'.
export { JudgeUnavailableError, judgeResponse } from './code-reward';
export { finalAssistantText } from './final-text';
export {
  type GradedRollout,
  type Grader,
  inThreadGrader,
  type ProblemToSample,
  type RolloutParts,
  rolloutAndGrade,
  type SampleToGrade,
  samplesOf,
} from './graded-rollout';
export type { FinishReason, GeneratedSequence, RolloutPolicy, SamplingParams } from './policy';
export {
  countEndings,
  ROLLOUT_ENDINGS,
  type RolloutEnding,
  type UnparseableCallPolicy,
} from './rollout-endings';
export {
  RolloutError,
  type RolloutOptions,
  type RolloutPrompt,
  type RolloutResult,
  type RolloutTiming,
  rollout,
} from './rollout-engine';
export { infraRetryDefaults, type SandboxToolOptions, sandboxToolEnvironment } from './sandbox-tools';
export { deriveSeed } from './seeds';
export { entropyFromTopLogprobs } from './servers/entropy-estimate';
export { remotePolicyDefaults } from './servers/remote-defaults';
export {
  RemotePolicyError,
  RemoteServersUnavailableError,
  type ServerFailure,
  TransientServerError,
} from './servers/remote-error';
export {
  toGeneratedSequence,
  type WireApi,
  type WireFinish,
  type WireGeneration,
  type WireRequest,
} from './servers/wire-api';
export { WireFields } from './servers/wire-fields';
export { type OpenAiCompletionRequest, openAiCompletions, servedModelName } from './servers/wire-openai';
export { type SglangGenerateRequest, sglangGenerate } from './servers/wire-sglang';
export { checkTemplateIntegrity, describeDrift, type TemplateDrift } from './template-integrity';
export {
  CODE_INTERPRETER_TOOL,
  type TemplateToolOptions,
  templateToolTurns,
} from './template-tools';
export {
  checkTokenIntegrity,
  type ObservationSegment,
  type PolicySegment,
  policyTokenCount,
  type RolloutRecord,
  type RolloutSegment,
  TokenIntegrityError,
  type TokenIntegrityOptions,
  type TokenIntegrityReport,
} from './token-integrity';
export type { ToolEnvironment, ToolOutcome } from './tool-environment';
