import { observationText } from './observation';
import { DEFAULT_OBSERVATION_CHARS, type ParsedToolCall, type ToolFormat } from './tool-format';

// A fenced block tagged py, python or nothing (SimpleTIR's pattern, ltzheng/SimpleTIR@e7b5b44:
// recipe/simpletir/agent_utils.py); a block tagged "output" is an observation, never code.
const CODE_BLOCK = /```(?:py|python)?\n([\s\S]*?)\n```/g;

/**
 * The Qwen2.5-Math tool-integrated style: ```python ... ``` then the model opens ```output, generation stops
 * there and the observation fills the block: "```python\ncode\n```\n```output\n<result>\n```\n".
 */
export const markdownFormat: ToolFormat = {
  name: 'markdown',
  stopStrings: ['```output'],
  parse(text: string): ParsedToolCall | null {
    let last: ParsedToolCall | null = null;
    for (const match of text.matchAll(CODE_BLOCK)) {
      last = { code: match[1] ?? '', start: match.index, end: match.index + match[0].length };
    }
    return last;
  },
  render(result, options = {}) {
    const body = observationText(result, options.maxChars ?? DEFAULT_OBSERVATION_CHARS);
    return `\n${body.replace(/\n$/, '')}\n\`\`\`\n`;
  },
};
