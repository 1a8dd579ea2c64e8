// The portable entry: no Node built-in, directly or through a dependency, so it runs in browsers, workers, Deno
// and Bun as in Node. What reads or writes files is in @taorl/data/node (src/node.ts), which imports what it
// shares with this entry from '@taorl/data' so both entries use one copy of each class (DataError, HfTokenizer).
export type { ArithKind, ArithLevel } from './arith-tool/kinds';
export {
  ARITH_MIXES,
  type ArithMix,
  type ArithMixName,
  type ArithShare,
  type ArithStrategyShares,
  arithMix,
} from './arith-tool/mixes';
export {
  type ArithProblem,
  type ArithProblemOptions,
  type ArithSplit,
  arithRlPrompt,
  arithSplitOf,
  arithUserMessage,
  DEFAULT_LEVEL_WEIGHTS,
  generateArithProblems,
} from './arith-tool/problems';
export { Rng } from './arith-tool/rng';
export { ARITH_STRATEGIES, arithStrategyOf } from './arith-tool/strategy';
export {
  type ArithStrategy,
  type ArithTrace,
  type ArithTraceOptions,
  generateArithTraces,
} from './arith-tool/traces';
export {
  type ChainKnobs,
  type ChainProblem,
  type ChainProblemOptions,
  DEFAULT_CHAIN_KNOBS,
  generateChainProblems,
} from './chain-tool/problems';
export {
  CHAIN_STRATEGIES,
  type ChainStrategy,
  type ChainTrace,
  type ChainTraceOptions,
  type ChainTraceShares,
  DEFAULT_CHAIN_TRACE_SHARES,
  generateChainTraces,
} from './chain-tool/traces';
export { EMBEDDED_CHAT_TEMPLATE, EMBEDDED_STOP_STRINGS } from './chat/embedded-template';
export { type SftExample, type SftOptions, toSftExample } from './chat/sft';
export { ChatTemplate, type ChatTemplateOptions, type RenderOptions } from './chat/template';
export { TemplateToolTurns, ToolTurnError, type ToolTurnOptions } from './chat/tool-turn';
export type { ChatMessage, ChatToolCall, Conversation, ToolSchema } from './chat/types';
export {
  type CurationOptions,
  type CurationReport,
  curateByPassRate,
  type HistogramBin,
  type PassRate,
  passRates,
} from './curation';
export { DATASET_FORMATS, type DatasetFormat, type DatasetRecords } from './datasets/dataset-formats';
export type { JsonObject } from './datasets/fields';
export {
  parseConversation,
  parseQaPair,
  parseRlPrompt,
  type QaPair,
  type RlPrompt,
} from './datasets/formats';
export type { DemoEnvironment, DemoProgress } from './demonstrations/demo-writer';
export { DataError, type DataLocation } from './errors';
export { ByteTokenizer, type ByteTokenizerOptions, EMBEDDED_SPECIAL_TOKENS } from './tokenizer/byte';
export { HfTokenizer, type HfTokenizerConfig } from './tokenizer/hf';
export { createIncrementalDecoder } from './tokenizer/incremental';
export type { DecodeOptions, IncrementalDecoder, TextPart, Tokenizer } from './tokenizer/types';
export type { CodeResult, CodeRunner, ToolCallFormat } from './tool-runner';
export { parseTrajectory, serializeTrajectory } from './trajectory/jsonl';
export {
  ResponseBuilder,
  type ResponseColumns,
  type ToolCallRecord,
  type TrainingSequence,
  trainingSequence,
} from './trajectory/response-builder';
export {
  type Group,
  groupTrajectories,
  TOOL_CALL_STATUSES,
  type ToolCall,
  type ToolCallStatus,
  type Trajectory,
} from './trajectory/types';
export { type ValidateTrajectoryOptions, validateTrajectory } from './trajectory/validate';
