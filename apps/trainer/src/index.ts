// The trainer's public surface: what README.md's API table documents (the model parts: docs/models.md), with the
// option and result types of those functions. Everything else is internal; import it from its module in tests.

export type { Policy } from '@taorl/model';
export {
  type Checkpoint,
  type ModelConfig,
  type PaddedBatch,
  paddedBatch,
  parseHfConfig,
  type SaveOptions,
  type TinyModelOptions,
  TransformerPolicy,
  tinyQwen3Config,
  toHfConfig,
  type WeightSpec,
  weightSpecs,
} from '@taorl/model';
export { createTinyPolicy, initPolicy, loadCheckpoint, loadPolicy, saveCheckpoint } from '@taorl/model/node';
export type { Problem, RlStepMetrics } from '@taorl/rl';
export {
  localPolicySync,
  type PolicySync,
  type PolicySyncReport,
  type RlStepContext,
  type RolloutStats,
  type RolloutVersion,
  rlStep,
  rolloutStats,
} from '@taorl/rl';
export { type BenchmarkReportPaths, writeBenchmarkReports } from './bench-eval/benchmark-reports.js';
export {
  type BenchmarkEvalOptions,
  type BenchmarkEvalParts,
  type BenchmarkEvalResult,
  evaluateBenchmarks,
} from './bench-eval/evaluate-benchmarks.js';
export type { CliCommand, CliIO, FlagSpec } from './cli/cli-command.js';
export { commands, runCli, usage } from './cli/run-cli.js';
export { ConfigError } from './config/config-error.js';
export { loadConfig, parseConfig } from './config/load-config.js';
export { type TrainerConfig, trainerSchema } from './config/trainer-config.js';
export { type MeanWithInterval, meanWithInterval } from './experiments/ablate/confidence.js';
export { type AblationOptions, type AblationResult, runAblation } from './experiments/ablate/run-ablation.js';
export { type AblationVariant, ablationVariants } from './experiments/ablate/variants.js';
export {
  loadedPluginModules,
  loadPluginModules,
  type PluginModule,
  type PluginRequest,
} from './plugins/plugin-modules.js';
export { RemoteRollouts } from './remote/remote-rollouts.js';
export { renderReport, writeReport } from './report/html-report.js';
export {
  type EvalMetrics,
  type MetricsLine,
  MetricsWriter,
  readMetrics,
  type SftStepMetrics,
} from './report/metrics.js';
export { formatDuration, ProgressBar, type ProgressOptions } from './report/progress.js';
export { reportSpecs } from './report/report-specs.js';
export { type RunSummary, runSummary } from './report/run-summary.js';
export { openServedModel, type ServedModel, type ServedModelOptions } from './serve/model.js';
export { type InferenceServer, type ServeOptions, startServer } from './serve/server.js';
export { type RlComponents, rlComponents } from './session/components.js';
export { type ProblemSource, problemSource, toolInstructionsOf } from './session/problem-source.js';
export { overlongOptionsOf, rolloutOptionsOf } from './session/rollout-options.js';
export { openSession, type Session } from './session/session.js';
export { lossTokenCount, weightedTokenBatch } from './sft/token-batch.js';
export { writeFileAtomic } from './util/atomic-write.js';
export { deriveSeed, permutation, seededRandom } from './util/seeds.js';
export { PolicyWorkers, RolloutWorkers } from './workers/policy-workers.js';
export type { TokenizerSource } from './workers/tokenizer-source.js';
export { type CurateOptions, type CurateResult, curateProblems } from './workflows/curate.js';
export { type EvaluateOptions, evaluate } from './workflows/evaluate.js';
export { type RlRunOptions, rlContext, runRl } from './workflows/rl-run.js';
export type { RunFolderFlags, RunIO } from './workflows/run-folder.js';
export { type TrainingResult, type TrainRlOptions, trainRl, trainSft } from './workflows/train.js';
