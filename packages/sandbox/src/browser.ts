// The browser's entry of @taorl/sandbox: the pyodide backend, each run in a web worker. No Node built-in is
// imported from here (test/browser-pyodide.test.ts bundles it for the browser).
export type { RegisterOptions } from '@taorl/plugin-registry';
// The tool-call formats are plain text rules, portable: a page's rollouts parse and render calls with them.
export { hermesFormat } from './formats/hermes';
export { markdownFormat } from './formats/markdown';
export { getToolFormat, registerToolFormat, toolFormatNames } from './formats/registry';
export { tagsFormat } from './formats/tags';
export type { ParsedToolCall, RenderOptions, ToolFormat } from './formats/tool-format';
export { DEFAULT_LIMITS, type ExecLimits, LIMIT_MAXIMA } from './limits';
export type { BrowserPyodideSandboxOptions } from './pyodide/browser-options';
export { createSandbox } from './pyodide/browser-sandbox';
export type { PyodideSandbox } from './pyodide/pyodide-sandbox';
export { SandboxSession } from './session';
export type { ExecRequest, ExecResult, ExecStatus, FetchedFile, Sandbox, SandboxFile } from './types';
export { EXEC_STATUSES } from './types';
