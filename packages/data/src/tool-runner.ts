import type { ToolCallStatus } from './trajectory/types';

/** What one execution reports; @taorl/sandbox's ExecResult has these fields and more. */
export interface CodeResult {
  status: ToolCallStatus;
  stdout: string;
  stderr: string;
}

/**
 * Runs code: a @taorl/sandbox Sandbox fits. Declared here so this package needs no sandbox to load; the code that
 * runs real code takes one as an argument.
 */
export interface CodeRunner<R extends CodeResult = CodeResult> {
  run(request: { code: string }): Promise<R>;
}

/**
 * How a model writes a call and reads its result in plain text: a @taorl/sandbox ToolFormat fits (its
 * markdownFormat, for example).
 */
export interface ToolCallFormat<R extends CodeResult = CodeResult> {
  /** Strings that end a turn with a tool call; kept in the generated text. */
  readonly stopStrings: readonly string[];
  /** The last complete call in `text`, or null if there is none. */
  parse(text: string): { code: string } | null;
  /** The observation appended after the call. */
  render(result: R, options?: { maxChars?: number }): string;
}
