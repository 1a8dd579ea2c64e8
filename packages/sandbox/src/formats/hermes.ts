import { observationText } from './observation';
import { registerBuiltInFormat } from './registry';
import { DEFAULT_OBSERVATION_CHARS, type ParsedToolCall, type ToolFormat } from './tool-format';

const TOOL_CALL = /<tool_call>([\s\S]*?)<\/tool_call>/g;
export const CODE_INTERPRETER = 'code_interpreter';

function codeOf(json: string): string | null {
  let call: unknown;
  try {
    call = JSON.parse(json);
  } catch {
    return null;
  }
  if (call === null || typeof call !== 'object') return null;
  const { name, arguments: args } = call as { name?: unknown; arguments?: unknown };
  if (name !== CODE_INTERPRETER) return null;
  // Some models emit the arguments as a JSON string rather than an object.
  let parsedArgs = args;
  if (typeof args === 'string') {
    try {
      parsedArgs = JSON.parse(args);
    } catch {
      return null;
    }
  }
  const code = (parsedArgs as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : null;
}

/**
 * Hermes function calling (Qwen's tool template, as Gen-Verse/Open-AgentRL@1fe5dbd):
 * <tool_call>{"name": "code_interpreter", "arguments": {"code": "..."}}</tool_call>, answered by
 * <tool_response>...</tool_response>. Calls to other tools or malformed JSON are not code calls.
 */
export const hermesFormat: ToolFormat = {
  name: 'hermes',
  stopStrings: ['</tool_call>'],
  parse(text: string): ParsedToolCall | null {
    let last: ParsedToolCall | null = null;
    for (const match of text.matchAll(TOOL_CALL)) {
      const code = codeOf((match[1] ?? '').trim());
      if (code !== null) last = { code, start: match.index, end: match.index + match[0].length };
    }
    return last;
  },
  render(result, options = {}) {
    const body = observationText(result, options.maxChars ?? DEFAULT_OBSERVATION_CHARS);
    return `\n<tool_response>\n${body.replace(/\n$/, '')}\n</tool_response>\n`;
  },
};

registerBuiltInFormat(hermesFormat);
