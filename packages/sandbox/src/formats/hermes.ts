import { observationContent } from './observation';
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
    const body = observationContent(result, options.maxChars ?? DEFAULT_OBSERVATION_CHARS);
    return `\n<tool_response>\n${body}\n</tool_response>\n`;
  },
  content(result, options = {}) {
    return observationContent(result, options.maxChars ?? DEFAULT_OBSERVATION_CHARS);
  },
  // Laid out as Qwen's chat templates present tools in the system message (Qwen2.5's and Qwen3's
  // tokenizer_config.json, given `tools`: a "# Tools" section, each signature as JSON inside <tools></tools>, then
  // the <tool_call> JSON shape; JSON spaced as their tojson writes it), in our words, plus where the output comes
  // back: the rollout appends <tool_response> inside the assistant's turn.
  instructions:
    '# Tools\n\nYou can call the function whose signature is inside <tools></tools>:\n<tools>\n' +
    `{"type": "function", "function": {"name": "${CODE_INTERPRETER}", "description": "Runs Python 3 code and ` +
    'returns what it prints, or its error.", "parameters": {"type": "object", "properties": {"code": {"type": ' +
    '"string", "description": "The Python code to run."}}, "required": ["code"]}}}\n</tools>\n\n' +
    'To call it, write a JSON object with the function name and its arguments inside <tool_call></tool_call> ' +
    'tags; the output comes back inside <tool_response></tool_response> tags. Example:\n<tool_call>\n' +
    `{"name": "${CODE_INTERPRETER}", "arguments": {"code": "print(6 * 7)"}}\n</tool_call>\n` +
    '<tool_response>\n42\n</tool_response>',
};

registerBuiltInFormat(hermesFormat);
