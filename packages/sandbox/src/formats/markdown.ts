import { observationContent } from './observation';
import { registerBuiltInFormat } from './registry';
import { DEFAULT_OBSERVATION_CHARS, type ParsedToolCall, type ToolFormat } from './tool-format';

// Every fenced block with its tag, consumed whole so that the closing fence of an output block never opens a
// block. Code is a block tagged py, python or nothing, as SimpleTIR's pattern ```(?:py|python)?\n(.*?)\n```
// (ltzheng/SimpleTIR@e7b5b44:recipe/simpletir/agent_utils.py), which on its own would take an output block's
// closing fence for an opening one.
const FENCED_BLOCK = /```(\w*)\n(?:([\s\S]*?)\n)??```/g;
const CODE_TAGS = new Set(['', 'py', 'python']);

/**
 * The Qwen2.5-Math tool-integrated style: ```python ... ``` then the model opens ```output, generation stops
 * there and the observation fills the block: "```python\ncode\n```\n```output\n<result>\n```\n".
 */
export const markdownFormat: ToolFormat = {
  name: 'markdown',
  stopStrings: ['```output'],
  parse(text: string): ParsedToolCall | null {
    let last: ParsedToolCall | null = null;
    for (const match of text.matchAll(FENCED_BLOCK)) {
      if (!CODE_TAGS.has(match[1] ?? '')) continue;
      last = { code: match[2] ?? '', start: match.index, end: match.index + match[0].length };
    }
    return last;
  },
  render(result, options = {}) {
    const body = observationContent(result, options.maxChars ?? DEFAULT_OBSERVATION_CHARS);
    return `\n${body}\n\`\`\`\n`;
  },
  content(result, options = {}) {
    return observationContent(result, options.maxChars ?? DEFAULT_OBSERVATION_CHARS);
  },
  // Short: a byte-level model's whole context may be 512 tokens.
  instructions:
    'You can run Python code. Write it in a ```python code block, then open an ```output block: its output is ' +
    'then shown to you there.',
};

registerBuiltInFormat(markdownFormat);
