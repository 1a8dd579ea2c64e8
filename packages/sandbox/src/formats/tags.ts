import { observationContent } from './observation';
import { registerBuiltInFormat } from './registry';
import { DEFAULT_OBSERVATION_CHARS, type ParsedToolCall, type ToolFormat } from './tool-format';

const CODE_TAG = /<code>([\s\S]*?)<\/code>/g;
// Models often fence the code inside the tags too.
const INNER_FENCE = /^\s*```(?:py|python)?\n([\s\S]*?)\n?```\s*$/;

/** XML-like tags: "<code>...</code>" answered by "<interpreter>...</interpreter>". */
export const tagsFormat: ToolFormat = {
  name: 'tags',
  stopStrings: ['</code>'],
  parse(text: string): ParsedToolCall | null {
    let last: ParsedToolCall | null = null;
    for (const match of text.matchAll(CODE_TAG)) {
      const inner = match[1] ?? '';
      const code = INNER_FENCE.exec(inner)?.[1] ?? inner.replace(/^\n/, '').replace(/\n$/, '');
      last = { code, start: match.index, end: match.index + match[0].length };
    }
    return last;
  },
  render(result, options = {}) {
    const body = observationContent(result, options.maxChars ?? DEFAULT_OBSERVATION_CHARS);
    return `\n<interpreter>\n${body}\n</interpreter>\n`;
  },
  content(result, options = {}) {
    return observationContent(result, options.maxChars ?? DEFAULT_OBSERVATION_CHARS);
  },
  // Short: a byte-level model's whole context may be 512 tokens.
  instructions:
    'You can run Python code. Write it between <code> and </code>; its output is then shown to you between ' +
    '<interpreter> and </interpreter>.',
};

registerBuiltInFormat(tagsFormat);
