// The portable entry: grading, extraction and metrics, with no Node built-in (directly or through a dependency),
// so it runs in browsers, workers, Deno and Bun as in Node. File loaders, the grader pool and the CLI need Node:
// they are in @taorl/eval/node (src/node.ts), which imports what it shares with this entry from '@taorl/eval' so
// both entries use one copy of each class (BenchmarkFormatError).
export { BenchmarkFormatError, type BenchmarkProblem } from './benchmarks/problem';
export type { PercentPolicy } from './compare/context';
export {
  defaultExtractionRules,
  type ExtractionRule,
  type ExtractOptions,
  extractAnswer,
  extractGoldAnswer,
} from './extract';
export {
  type AnswerComparison,
  compareAnswers,
  type Gold,
  type GradeOptions,
  type GradeReason,
  type GradeResult,
  grade,
  isEquivalent,
} from './grade';
export { defaultLimits, type Limits } from './limits';
export { passAtK } from './metrics/passAtK';
export { type BenchmarkReport, type ScoredSample, scoreBenchmark } from './metrics/score';
export { countToolUse, type RecordedToolCall, type ToolUse, toolUseOf } from './metrics/toolUse';
export { type NormalizedAnswer, normalizeAnswer } from './normalize';
