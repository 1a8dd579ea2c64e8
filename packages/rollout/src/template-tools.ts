import {
  type ChatTemplate,
  TemplateToolTurns,
  type Tokenizer,
  type ToolSchema,
  ToolTurnError,
} from '@taorl/data';
import type { ToolFormat } from '@taorl/sandbox';

/**
 * The code tool as a chat template is given it (`tools`): the signature the hermes format's instructions show, so a
 * template that writes its own tool section (Qwen2.5, Qwen3) teaches the call the hermes format parses.
 */
export const CODE_INTERPRETER_TOOL: ToolSchema = {
  type: 'function',
  function: {
    name: 'code_interpreter',
    description: 'Runs Python 3 code and returns what it prints, or its error.',
    parameters: {
      type: 'object',
      properties: { code: { type: 'string', description: 'The Python code to run.' } },
      required: ['code'],
    },
  },
};

export interface TemplateToolOptions {
  /** Template variables the prompts are rendered with (e.g. { enable_thinking: false }). */
  variables?: Record<string, unknown>;
}

/**
 * The tool turns of the model's own chat template for a tool format, checked before any rollout: the template must
 * render tool messages with the tokenizer's markup tokens (TemplateToolTurns), and the format must parse the call
 * the template teaches (a model taught `<tool_call>` JSON by its template writes calls the markdown format never
 * finds). Throws ToolTurnError naming the template and what is missing.
 */
export function templateToolTurns(
  template: ChatTemplate,
  tokenizer: Tokenizer,
  format: ToolFormat,
  options: TemplateToolOptions = {},
): TemplateToolTurns {
  if (format.content === undefined) {
    throw new ToolTurnError(
      `the tool format "${format.name}" has no content() (the output without its wrapper), which a chat ` +
        "template's tool turn holds: add one, or use a single-turn layout (tool.turns inline)",
    );
  }
  const turns = new TemplateToolTurns(template, tokenizer, {
    tools: [CODE_INTERPRETER_TOOL],
    ...(options.variables === undefined ? {} : { variables: options.variables }),
  });
  const { text, code } = turns.probeCall;
  if (format.parse(text)?.code !== code) {
    throw new ToolTurnError(
      `${template.name} renders a call of ${CODE_INTERPRETER_TOOL.function.name} as ${JSON.stringify(text)}, ` +
        `which the tool format "${format.name}" does not parse: use a format that does (hermes for Qwen's ` +
        'templates), or a single-turn layout (tool.turns inline)',
    );
  }
  return turns;
}
