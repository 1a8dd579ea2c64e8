export { defaultBenchmarkDir } from './benchmarkDir';
export { benchmarkNames, loadBenchmark } from './benchmarks/load';
export { BenchmarkFormatError, type BenchmarkProblem } from './benchmarks/problem';
export { loadVerlParquet } from './benchmarks/verl';
export type { PercentPolicy } from './compare/context';
export {
  defaultExtractionRules,
  type ExtractionRule,
  type ExtractOptions,
  extractAnswer,
  extractGoldAnswer,
} from './extract';
export {
  compareAnswers,
  type Gold,
  type GradeOptions,
  type GradeReason,
  type GradeResult,
  grade,
  isEquivalent,
  type Verdict,
} from './grade';
export { defaultLimits, type Limits } from './limits';
export { passAtK } from './metrics/passAtK';
export { type BenchmarkReport, type ScoredSample, scoreBenchmark } from './metrics/score';
export { countToolUse, type ToolUse } from './metrics/toolUse';
export { type NormalizedAnswer, normalizeAnswer } from './normalize';
export { createGraderPool, type GraderPool, type GraderPoolOptions } from './pool/pool';
export type { GradeTask } from './pool/protocol';
