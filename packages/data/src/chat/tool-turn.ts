import type { Tokenizer } from '../tokenizer/types';
import type { ChatTemplate } from './template';
import type { ChatMessage, ToolSchema } from './types';

/** Stand-ins the probe conversation carries, found again in the rendering to cut it into markup and content. */
const CONTENT_PROBE = 'TAORL_TOOL_OUTPUT_PROBE';
const CODE_PROBE = 'TAORL_CODE_PROBE';

/** Markup of ChatML-style templates that must be one token each ("<|im_start|>"); other tags may be text. */
const CHAT_MARKER = /<\|[^|<>\s]+\|>/g;

export interface ToolTurnOptions {
  /** The tools the prompts are rendered with (most templates write them into the system message). */
  tools: ToolSchema[];
  /** The tool the model calls, one of `tools`. Default: the first. */
  toolName?: string;
  /** Extra template variables, as for the prompts (e.g. { enable_thinking: false }). */
  variables?: Record<string, unknown>;
}

/** A template and tokenizer that cannot render tool turns; the message names the template and what is missing. */
export class ToolTurnError extends Error {
  override name = 'ToolTurnError';
}

/**
 * Tool turns as the model's own chat template renders them. After the model ends its turn with its end-of-turn
 * token (a tool call in it), the rollout inserts `encode(output)`: exactly the text the template adds when a tool
 * message follows, up to and including the next assistant turn's generation prompt, i.e. the difference between
 * the conversation rendered with the tool message (and the generation prompt) and without it, starting right after
 * the end-of-turn token the model sampled. The template's markup is encoded as the tokens it is ("<tool_response>"
 * is one token for Qwen3, text for Qwen2.5); the tool's output is untrusted text.
 *
 * The template is rendered once, on a probe conversation, and cut where the probe's output sits: so the turn must
 * not depend on the conversation before it beyond the call (true of Qwen2.5's and Qwen3's templates; the
 * template integrity check renders each trajectory's real messages and reports any difference).
 */
export class TemplateToolTurns {
  readonly template: ChatTemplate;
  readonly tools: ToolSchema[];
  readonly variables: Record<string, unknown>;
  readonly #callText: string;
  readonly #before: string;
  readonly #after: string;
  readonly #tokenizer: Tokenizer;

  constructor(template: ChatTemplate, tokenizer: Tokenizer, options: ToolTurnOptions) {
    const fail = (problem: string): never => {
      throw new ToolTurnError(`${template.name} cannot render tool turns: ${problem}`);
    };
    const toolName = options.toolName ?? options.tools[0]?.function.name;
    if (toolName === undefined || !options.tools.some((tool) => tool.function.name === toolName)) {
      fail(`the tool ${JSON.stringify(toolName ?? '')} is not among the tools offered`);
    }
    this.template = template;
    this.tools = options.tools;
    this.variables = options.variables ?? {};
    this.#tokenizer = tokenizer;
    const render = (messages: ChatMessage[], addGenerationPrompt: boolean) =>
      template.render(messages, { tools: this.tools, variables: this.variables, addGenerationPrompt });
    const user: ChatMessage = { role: 'user', content: 'Q' };
    const call: ChatMessage = {
      role: 'assistant',
      content: '',
      tool_calls: [
        { type: 'function', function: { name: toolName as string, arguments: { code: CODE_PROBE } } },
      ],
    };
    const tool: ChatMessage = { role: 'tool', content: CONTENT_PROBE, name: toolName as string };
    const history = render([user], false);
    const withTool = render([user, call, tool], true);
    const endOfTurn = tokenizer.specialTokenText(tokenizer.eosTokenId) ?? '';
    // Only the turns before the model's must be stable: its own turn is what it sampled, after the generation
    // prompt it saw (Qwen3 adds an empty think block to a final turn, and with enable_thinking false to the
    // generation prompt, neither of which it renders once the turn is not the last).
    if (!withTool.startsWith(history)) {
      fail("it renders the turns before the model's turn differently once a tool call and its output follow");
    }
    const end = endOfTurn === '' ? -1 : withTool.indexOf(endOfTurn, history.length);
    if (end < 0) {
      fail(
        "an assistant turn with a tool call does not end with the tokenizer's end-of-turn token " +
          JSON.stringify(endOfTurn),
      );
    }
    const cut = end + endOfTurn.length;
    const turn = withTool.slice(cut);
    const at = turn.indexOf(CONTENT_PROBE);
    if (at < 0 || turn.indexOf(CONTENT_PROBE, at + 1) >= 0) {
      fail(
        at < 0
          ? "it has no tool-message support (a message with role 'tool' does not render its content)"
          : "it renders a tool message's content more than once",
      );
    }
    this.#callText = withTool.slice(history.length, cut);
    this.#before = turn.slice(0, at);
    this.#after = turn.slice(at + CONTENT_PROBE.length);
    for (const marker of `${this.#before}${this.#after}`.match(CHAT_MARKER) ?? []) {
      if (tokenizer.encode(marker).length !== 1) {
        fail(`the tokenizer has no token for its markup ${JSON.stringify(marker)}`);
      }
    }
  }

  /**
   * The model's turn as the template renders a call of the tool with `code` (from its header to its end-of-turn
   * token): a
   * tool format must parse `code` back out of `text`, or the model, taught the template's call syntax, would write
   * calls the rollout cannot run.
   */
  get probeCall(): { text: string; code: string } {
    return { text: this.#callText, code: CODE_PROBE };
  }

  /** The ids that follow the model's end of turn: the tool turn holding `output`, then the generation prompt. */
  encode(output: string): Int32Array {
    return this.#tokenizer.encodeParts([
      { text: this.#before },
      { text: output, untrusted: true },
      { text: this.#after },
    ]);
  }

  /** The text `encode` encodes. */
  text(output: string): string {
    return `${this.#before}${output}${this.#after}`;
  }
}
