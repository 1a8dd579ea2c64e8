import type { TemplateToolTurns, ToolCallStatus } from '@taorl/data';

/** What the rollout engine needs from a tool execution (a subset of @taorl/sandbox's ExecResult). */
export interface ToolOutcome {
  status: ToolCallStatus;
  /**
   * The observation, cut to the observation budget: the text to insert, rendered by the tool format (inline
   * layout), or the tool message's content (with `toolTurns`, whose template renders the turn around it).
   */
  observation: string;
  durationMs: number;
}

/**
 * The environment side of a tool-integrated rollout: where generation pauses, how a call is recognised, and how
 * it is executed. `createToolEnvironment` builds one from a @taorl/sandbox ToolFormat and Sandbox; tests and
 * users may supply their own.
 */
export interface ToolEnvironment {
  /** Generation pauses when one of these appears (the format's end-of-call marker); none with `toolTurns`. */
  readonly stopStrings: readonly string[];
  /**
   * Tool turns of the model's own chat template (docs/explanation/rollout.md, "Tool-turn layouts"): the model ends
   * its turn with its end-of-turn token after a call, and the rollout appends `toolTurns.encode(observation)`, the
   * template's tool turn and the next generation prompt. Absent: the inline layout, where generation pauses on a
   * stop string inside the assistant's turn and the observation is appended there as untrusted text.
   */
  readonly toolTurns?: TemplateToolTurns;
  /** The code of the call the assistant segment ends with, or null when it has none. */
  parse(segment: string): string | null;
  /** Runs the code and renders the observation. Never throws: failures come back as a status. */
  execute(code: string): Promise<ToolOutcome>;
  /**
   * The observation that answers a call that did not parse (the segment ended on a stop string, `parse` found no
   * call), for the rollout's `unparseableCall: 'observe'`: the format's rendering of a parse error.
   */
  parseError?(segment: string): ToolOutcome;
  /**
   * The sandbox's own message for the latest call that failed in the sandbox itself (`sandbox_error`) after its
   * retries, or null when none did; for error messages (it may name a URL the model must not see).
   */
  lastInfraFailure?(): string | null;
}
