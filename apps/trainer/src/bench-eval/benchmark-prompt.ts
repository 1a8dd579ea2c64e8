import type { ChatMessage, ChatTemplate, Tokenizer, ToolSchema } from '@taorl/data';

/**
 * How the model is told about its Python tool, per @taorl/sandbox tool format: the call syntax the format's
 * `parse` accepts and the wrapper its `render` puts around the output.
 */
const toolInstructions: Record<string, string> = {
  markdown:
    'You can run Python code. Write it in a ```python code block; its output is then shown to you in an ' +
    '```output block.',
  hermes:
    'You can run Python code with the code_interpreter tool: ' +
    '<tool_call>{"name": "code_interpreter", "arguments": {"code": "..."}}</tool_call>. Its output is then ' +
    'shown to you between <tool_response> and </tool_response>.',
  tags:
    'You can run Python code. Write it between <code> and </code>; its output is then shown to you between ' +
    '<interpreter> and </interpreter>.',
};

/**
 * The tool offered to templates that render a tools list (Qwen's): the name hermesFormat accepts
 * (@taorl/sandbox formats/hermes.ts).
 */
const codeInterpreterTool: ToolSchema = {
  type: 'function',
  function: {
    name: 'code_interpreter',
    description: 'Runs Python 3 code and returns what it prints.',
    parameters: {
      type: 'object',
      properties: { code: { type: 'string', description: 'The Python code to run.' } },
      required: ['code'],
    },
  },
};

// Kept as it was when only math was evaluated, so math results files resume; a choice or code problem's user
// message says what form its answer takes (bench-eval/benchmark-items.ts).
const answerInstruction =
  'Reason step by step, use the tool when it helps, and put the final answer in \\boxed{}.';

/** The system prompt for a tool format; a format without built-in instructions needs `systemPrompt`. */
export function toolSystemPrompt(toolFormat: string, systemPrompt?: string): string {
  if (systemPrompt !== undefined) return systemPrompt;
  const instructions = toolInstructions[toolFormat];
  if (instructions === undefined) {
    throw new Error(
      `no built-in tool instructions for tool format "${toolFormat}" (built in: ` +
        `${Object.keys(toolInstructions).join(', ')}); pass systemPrompt`,
    );
  }
  return `${instructions} ${answerInstruction}`;
}

/** A benchmark problem as a chat prompt (system: tool instructions; user: the problem), rendered to token ids. */
export function benchmarkPromptIds(
  userMessage: string,
  parts: { tokenizer: Tokenizer; template: ChatTemplate },
  toolFormat: string,
  systemPrompt: string,
): Int32Array {
  const messages: ChatMessage[] = [
    { role: 'system', content: systemPrompt },
    { role: 'user', content: userMessage },
  ];
  const text = parts.template.render(messages, {
    addGenerationPrompt: true,
    ...(toolFormat === 'hermes' ? { tools: [codeInterpreterTool] } : {}),
  });
  return parts.tokenizer.encode(text);
}
