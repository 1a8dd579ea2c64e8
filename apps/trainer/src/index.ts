export { type MeanWithInterval, meanWithInterval } from './ablate/confidence.js';
export { type AblationOptions, type AblationResult, runAblation } from './ablate/run-ablation.js';
export { type AblationVariant, ablationVariants, selectVariants } from './ablate/variants.js';
export { benchmarkPromptIds, toolSystemPrompt } from './bench-eval/benchmark-prompt.js';
export {
  type BenchmarkReportPaths,
  benchmarkMarkdown,
  benchmarkTable,
  renderBenchmarkHtml,
  writeBenchmarkReports,
} from './bench-eval/benchmark-reports.js';
export { resolveBenchmarkNames } from './bench-eval/benchmark-set.js';
export {
  type BenchmarkEvalOptions,
  type BenchmarkEvalParts,
  type BenchmarkEvalProgress,
  type BenchmarkEvalResult,
  evaluateBenchmarks,
} from './bench-eval/evaluate-benchmarks.js';
export {
  type BenchmarkEvalConfig,
  BenchmarkResultsError,
  type BenchmarkSampleRecord,
  type ParsedResults,
  readBenchmarkResults,
} from './bench-eval/results-file.js';
export type { CliCommand, CliIO } from './cli/cli-command.js';
export { commands, runCli, usage } from './cli/run-cli.js';
export { ConfigError } from './config/config-error.js';
export { loadConfig, parseConfig } from './config/load-config.js';
export { type TrainerConfig, trainerSchema } from './config/trainer-config.js';
export {
  type Checkpoint,
  loadCheckpoint,
  type SaveOptions,
  saveCheckpoint,
  type WeightSpec,
  weightSpecs,
} from './model/checkpoint.js';
export {
  type ModelConfig,
  type ModelFamily,
  parseHfConfig,
  type TinyModelOptions,
  tinyQwen3Config,
  toHfConfig,
} from './model/config.js';
export type {
  FinishReason,
  GeneratedSequence,
  Policy,
  RolloutPolicy,
  SamplingParams,
} from './model/policy.js';
export {
  encodeSafetensors,
  type NamedTensor,
  readSafetensorsHeader,
  readTensor,
  type TensorLocation,
} from './model/safetensors.js';
export { createTinyPolicy, initPolicy, loadPolicy, TransformerPolicy } from './model/transformer-policy.js';
export { entropyFromTopLogprobs } from './remote/entropy-estimate.js';
export {
  RemotePolicyError,
  RemoteServersUnavailableError,
  type ServerFailure,
} from './remote/remote-error.js';
export { type RemoteApi, RemotePolicy, type RemotePolicyOptions } from './remote/remote-policy.js';
export { RemoteRollouts } from './remote/remote-rollouts.js';
export type { RemoteServerStats } from './remote/server-pool.js';
export { WeightReloadError } from './remote/weight-sync.js';
export { renderReport, reportSpecs, writeReport } from './report/html-report.js';
export {
  type EntropySource,
  type EvalMetrics,
  type MetricsLine,
  MetricsWriter,
  type RlStepMetrics,
  readMetrics,
  type ServerStepStats,
  type SftStepMetrics,
  type TimeSplit,
} from './report/metrics.js';
export { formatDuration, ProgressBar, type ProgressOptions, type ProgressSink } from './report/progress.js';
export {
  type GradedRollout,
  type Grader,
  type RolloutParts,
  rolloutAndGrade,
  type SampleToGrade,
  samplesOf,
} from './rl/graded-rollout.js';
export {
  localPolicySync,
  type PolicySync,
  type PolicySyncReport,
  type RolloutVersion,
} from './rl/policy-sync.js';
export { finalAssistantText, type Problem } from './rl/rewards.js';
export { type PolicyUpdate, type RlStepContext, rlStep, type UpdateStats } from './rl/rl-step.js';
export { type RolloutStats, rolloutStats } from './rl/rollout-stats.js';
export { type PaddedBatch, paddedBatch } from './rl/update-batch.js';
export {
  type RolloutOptions,
  type RolloutPrompt,
  type RolloutResult,
  type RolloutTiming,
  rollout,
} from './rollout/rollout-engine.js';
export { rolloutOptionsOf } from './rollout/rollout-options.js';
export { RolloutWorkers } from './rollout/rollout-workers.js';
export { type SandboxToolOptions, sandboxToolEnvironment } from './rollout/sandbox-tools.js';
export { loadTokenizer, type TokenizerSource } from './rollout/tokenizer-source.js';
export type { ToolEnvironment, ToolOutcome } from './rollout/tool-environment.js';
export { type CurateOptions, type CurateResult, curateProblems } from './run/curate.js';
export { type EvaluateOptions, evaluate } from './run/evaluate.js';
export { type ProblemSource, problemSource } from './run/problems.js';
export { checkRemoteMode, type RlRunOptions, rlContext, rolloutMode, runRl } from './run/rl-run.js';
export type { RunFolderFlags, RunIO } from './run/run-folder.js';
export { openSession, type Session } from './run/session.js';
export { type TrainingResult, type TrainRlOptions, trainRl, trainSft } from './run/train.js';
export {
  type BatchSettings,
  GenerationBatcher,
  type GenerationRequest,
  type GenerationResult,
  type TextDecode,
} from './serve/batcher.js';
export type {
  CompletionChoice,
  CompletionLogprobs,
  CompletionResponse,
} from './serve/completions.js';
export type { GenerateFinishReason, GenerateResponse, TokenLogprob } from './serve/generate.js';
export { openServedModel, type ServedModel, type ServedModelOptions } from './serve/model.js';
export { type InferenceServer, type ServeOptions, startServer } from './serve/server.js';
export type { UpdateWeightsResponse } from './serve/weights.js';
export { writeFileAtomic } from './util/atomic-write.js';
export { deriveSeed, permutation, prng } from './util/seeds.js';
