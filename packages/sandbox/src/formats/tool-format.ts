import type { ExecResult } from '../types';

/** A tool call found in generated text: the code and where the call sits in the text. */
export interface ParsedToolCall {
  code: string;
  /** Offset of the call's first character. */
  start: number;
  /** Offset just past the call's last character. */
  end: number;
}

export interface RenderOptions {
  /** Character budget of the observation body (the wrapper is extra). Default 512, as SimpleTIR. */
  maxChars?: number;
}

/**
 * How a model writes code and reads results in plain text. The rollout engine generates until one of
 * `stopStrings` (keeping it in the text), calls `parse` on the text generated since the last observation, runs
 * the call, and appends `render(result)` verbatim.
 */
export interface ToolFormat {
  readonly name: string;
  /** Strings that end a turn with a tool call; kept in the generated text. */
  readonly stopStrings: readonly string[];
  /** The last complete call in `text`, or null if there is none. */
  parse(text: string): ParsedToolCall | null;
  /** The observation appended after the call. */
  render(result: ExecResult, options?: RenderOptions): string;
  /**
   * The result as a tool message's content, without the format's wrapper (the output, one final line break
   * dropped): what a chat template that renders tool turns itself puts in its tool turn. Optional for a format of
   * your own; the template tool-turn layout needs it.
   */
  content?(result: ExecResult, options?: RenderOptions): string;
  /**
   * How to call the tool in this format and where its output comes back, in words a model reads in its system
   * message. A trainer shows it to a model that was not fine-tuned on the format; the
   * task's own rule for the final answer is the trainer's to add. Optional for a format of your own.
   */
  readonly instructions?: string;
}

export const DEFAULT_OBSERVATION_CHARS = 512;
