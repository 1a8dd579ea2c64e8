export type {
  OptionsSchema,
  RawOptions,
  RegisterOptions,
  RegisterWithSchema,
  StandardSchemaV1,
} from '@taorl/plugin-registry';
export {
  type CustomSandboxOptions,
  checkSandboxOptions,
  createSandbox,
  registerSandboxBackend,
  type SandboxBackendFactory,
  sandboxBackendNames,
} from './create';
export { hermesFormat } from './formats/hermes';
export { markdownFormat } from './formats/markdown';
export { keepEnd, observationText, truncateMiddle } from './formats/observation';
export { getToolFormat, registerToolFormat, toolFormatNames } from './formats/registry';
export { tagsFormat } from './formats/tags';
export type { ParsedToolCall, RenderOptions, ToolFormat } from './formats/tool-format';
export { DEFAULT_OBSERVATION_CHARS } from './formats/tool-format';
export { checkSandboxHealth } from './health';
export { DEFAULT_LIMITS, type ExecLimits, LIMIT_MAXIMA, MAX_PATH_BYTES, WRITABLE_ROOT_NAMES } from './limits';
export { type LocalSandbox, localIsolationProblem } from './local/local-sandbox';
export type { IsolationMode, LocalSandboxOptions } from './local/options';
export type { PyodideSandboxOptions } from './pyodide/options';
export type { PyodideSandbox } from './pyodide/pyodide-sandbox';
export type { RunCodeRequest, RunCodeResponse, SandboxFusionOptions } from './remote/sandboxfusion';
export { SandboxSession } from './session';
export type { ExecRequest, ExecResult, ExecStatus, FetchedFile, Sandbox, SandboxFile } from './types';
export { EXEC_STATUSES } from './types';
