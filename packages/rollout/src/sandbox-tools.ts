import type { TemplateToolTurns } from '@taorl/data';
import type { ExecResult, Sandbox, ToolFormat } from '@taorl/sandbox';
import type { ToolEnvironment } from './tool-environment.js';

/** The defaults of the infrastructure-retry options, shared with the trainer config (tool.infraRetries, ...). */
export const infraRetryDefaults = { infraRetries: 2, infraRetryDelayMs: 1000 } as const;

export interface SandboxToolOptions {
  /** Wall-clock limit per call. */
  timeoutMs: number;
  /** Observation budget in characters (head and tail kept by the format's renderer). */
  observationChars: number;
  /**
   * Extra attempts of a call that failed in the sandbox itself (`sandbox_error`: server unreachable, HTTP 5xx, a
   * transport timeout, a crashed worker, a refused request), on top of the backend's own retries. Default 2.
   */
  infraRetries?: number;
  /** Wait before the first such extra attempt, doubled for each next one. Default 1000. */
  infraRetryDelayMs?: number;
  /**
   * Render tool turns with the model's chat template (`templateToolTurns`): the observation is then the tool
   * message's content, the output without the wrapper the format would add. Default: the format's inline layout.
   */
  toolTurns?: TemplateToolTurns;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The rollout's tool environment over a @taorl/sandbox ToolFormat and Sandbox (stateless calls). A call that fails
 * in the sandbox itself is run again, up to `infraRetries` times, so that a short outage (a restarting server, a
 * replaced worker) costs time, not a wrong answer; one that still fails comes back as `sandbox_error`.
 */
export function sandboxToolEnvironment(
  format: ToolFormat,
  sandbox: Sandbox,
  options: SandboxToolOptions,
): ToolEnvironment {
  const { infraRetries, infraRetryDelayMs } = { ...infraRetryDefaults, ...options };
  let lastInfraFailure: string | null = null;
  const { toolTurns } = options;
  if (toolTurns !== undefined && format.content === undefined) {
    throw new TypeError(
      `sandboxToolEnvironment: tool format "${format.name}" has no content(), which template tool turns need`,
    );
  }
  // A tool message holds the output without the format's wrapper (ToolFormat.content): the template renders the
  // turn around it.
  const observe = (result: ExecResult) =>
    toolTurns === undefined
      ? format.render(result, { maxChars: options.observationChars })
      : format.content!(result, { maxChars: options.observationChars });
  return {
    stopStrings: toolTurns === undefined ? format.stopStrings : [],
    ...(toolTurns === undefined ? {} : { toolTurns }),
    parse: (segment) => format.parse(segment)?.code ?? null,
    async execute(code) {
      let result = await sandbox.run({ code, timeoutMs: options.timeoutMs });
      for (let retry = 0; result.status === 'sandbox_error' && retry < infraRetries; retry++) {
        await pause(infraRetryDelayMs * 2 ** retry);
        result = await sandbox.run({ code, timeoutMs: options.timeoutMs });
      }
      if (result.status === 'sandbox_error') {
        lastInfraFailure = `${result.sandboxMessage ?? 'no message'} (after ${infraRetries + 1} attempts)`;
      }
      return {
        status: result.status,
        observation: observe(result),
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
        observation: observe(result),
        durationMs: 0,
      };
    },
    lastInfraFailure: () => lastInfraFailure,
  };
}
