// The portable entry: grading, extraction and metrics, with no Node built-in (directly or through a dependency),
// so it runs in browsers, workers, Deno and Bun as in Node. File loaders, the grader pool and the CLI need Node:
// they are in @taorl/eval/node (src/node.ts), which imports what it shares with this entry from '@taorl/eval' so
// both entries use one copy of each class (BenchmarkFormatError).
export { BenchmarkFormatError, type BenchmarkProblem } from './benchmarks/problem';
export {
  type ChoiceProblem,
  type ChoiceRecord,
  formatChoicePrompt,
  shuffleChoices,
} from './choice/choice-problem';
export {
  type ChoiceOptions,
  type ChoiceRule,
  type ExtractedChoice,
  extractChoice,
  normalizeOptionText,
} from './choice/extract-choice';
export { type ChoiceGrade, gradeChoice } from './choice/grade-choice';
export { compareStdout, type StdoutComparison } from './code/compare-stdout';
export { extractProgram } from './code/extract-program';
export {
  CODE_JUDGE_MODES,
  type CodeJudgeMode,
  type CodeJudgement,
  type CodeProblem,
  type CodeRunner,
  type CodeTask,
  CodeTaskError,
  type CodeTest,
  type JudgeOptions,
  judgeProgram,
  type TestVerdict,
} from './code/judge';
export { type PyJson, PyJsonError, parsePyJson, pyEqual } from './code/python-json';
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
export { seededRandom } from './seeded-random';
