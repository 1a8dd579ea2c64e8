import type { ExecResult, Sandbox, ToolFormat } from '@taorl/sandbox';
import type { ToolEnvironment } from './tool-environment.js';

export interface SandboxToolOptions {
  /** Wall-clock limit per call. */
  timeoutMs: number;
  /** Observation budget in characters (head and tail kept by the format's renderer). */
  observationChars: number;
}

/** The rollout's tool environment over a @taorl/sandbox ToolFormat and Sandbox (stateless calls). */
export function sandboxToolEnvironment(
  format: ToolFormat,
  sandbox: Sandbox,
  options: SandboxToolOptions,
): ToolEnvironment {
  return {
    stopStrings: format.stopStrings,
    parse: (segment) => format.parse(segment)?.code ?? null,
    async execute(code) {
      const result = await sandbox.run({ code, timeoutMs: options.timeoutMs });
      return {
        status: result.status,
        observation: format.render(result, { maxChars: options.observationChars }),
        durationMs: result.durationMs,
      };
    },
    parseError() {
      const message = 'Error: the tool call could not be parsed; write it exactly in the format shown.';
      const result: ExecResult = {
        status: 'error',
        exitCode: null,
        signal: null,
        stdout: '',
        stderr: message,
        stdoutTruncated: false,
        stderrTruncated: false,
        durationMs: 0,
      };
      return {
        status: 'error',
        observation: format.render(result, { maxChars: options.observationChars }),
        durationMs: 0,
      };
    },
  };
}
