/**
 * The places an answer is looked for. The default order is Math-Verify's priorities; 'last_number' (Qwen's last
 * resort, the last number in the text) is opt-in because it credits answers the model never committed to.
 */
export type ExtractionRule = 'final_answer' | 'boxed' | 'answer_phrase' | 'last_math' | 'last_number';

export interface ExtractOptions {
  /** Rules tried in order; the first that finds something wins. Default: defaultExtractionRules. */
  readonly rules?: readonly ExtractionRule[];
  /**
   * Look only after the last assistant turn marker and the last code-interpreter output block, so an answer
   * printed by a tool or stated in the prompt is never graded as the model's. Default true.
   */
  readonly finalTextOnly?: boolean;
}

export const defaultExtractionRules: readonly ExtractionRule[] = [
  'final_answer',
  'boxed',
  'answer_phrase',
  'last_math',
];

const assistantMarkers = [
  '<|im_start|>assistant',
  '<|start_header_id|>assistant<|end_header_id|>',
  'Assistant:',
];
/** Tool outputs of the three trajectory formats (markdown, hermes, tags) and the plain <output> tag. */
const outputBlockOpeners = ['```output', '<tool_response>', '<interpreter>', '<output>'];
const boxCommands = ['\\boxed', '\\fbox'];

/**
 * The answer a model committed to, or null. Every rule searches from the right, so the last statement wins; all
 * scans are linear (lastIndexOf and one brace-matching pass), so a megabyte of text costs milliseconds.
 */
export function extractAnswer(text: string, options: ExtractOptions = {}): string | null {
  const finalText = options.finalTextOnly === false ? text : finalAssistantText(text);
  for (const rule of options.rules ?? defaultExtractionRules) {
    const found = extractors[rule](finalText);
    if (found !== null && found.trim() !== '') return found.trim();
  }
  return null;
}

const extractors: Record<ExtractionRule, (text: string) => string | null> = {
  final_answer: (text) => {
    const match = lastMatch(text, /final answer is/gi);
    if (match === null) return null;
    const tail = text.slice(match).split(/\n|I hope it is correct/)[0] ?? '';
    return lastBoxed(tail) ?? lastMath(tail) ?? stripSentenceEnd(tail);
  },
  boxed: lastBoxed,
  answer_phrase: (text) => {
    const match = lastMatch(text, /answer\s*:|the answer is/gi);
    if (match === null) return null;
    const line =
      text
        .slice(match)
        .split('\n')
        .find((part) => part.trim() !== '') ?? '';
    return lastMath(line) ?? stripSentenceEnd(line);
  },
  last_math: lastMath,
  last_number: (text) => {
    let last: string | null = null;
    for (const match of text.matchAll(/-?\d[\d,]*(?:\.\d+)?|-?\.\d+/g)) last = match[0];
    return last;
  },
};

function finalAssistantText(text: string): string {
  let start = 0;
  for (const marker of assistantMarkers) {
    const at = text.lastIndexOf(marker);
    if (at >= 0) start = Math.max(start, at + marker.length);
  }
  for (const opener of outputBlockOpeners) {
    const at = text.lastIndexOf(opener);
    if (at < start) continue;
    const closer = opener.startsWith('<') ? `</${opener.slice(1)}` : '```';
    const end = text.indexOf(closer, at + opener.length);
    start = end < 0 ? text.length : end + closer.length;
  }
  // A model that runs on into a new turn ("<|im_start|>user ...") ends its answer there.
  const nextTurn = text.indexOf('<|im_start|>', start);
  const end = nextTurn < 0 ? text.length : nextTurn;
  return text.slice(start, end).replace(/<\|im_end\|>|<\|eot_id\|>|<\|endoftext\|>/g, '');
}

/** Index just past the last match of a global regex, or null. */
function lastMatch(text: string, pattern: RegExp): number | null {
  let end: number | null = null;
  for (const match of text.matchAll(pattern)) end = match.index + match[0].length;
  return end;
}

/** Trims spaces, a leading colon and a closing full stop with loops, not regexes: the text may be megabytes. */
function stripSentenceEnd(text: string): string | null {
  let start = 0;
  let end = text.length;
  while (start < end && (text[start] === ':' || text[start] === '$' || /\s/.test(text[start]!))) start += 1;
  while (end > start && (text[end - 1] === '.' || text[end - 1] === '$' || /\s/.test(text[end - 1]!)))
    end -= 1;
  return start === end ? null : text.slice(start, end);
}

interface Span {
  readonly start: number;
  readonly end: number;
  readonly content: string;
}

/**
 * The content of the last \boxed{...} (or \fbox), nested braces included. Boxes separated only by commas, "and"
 * or dollar signs form one answer ("\boxed{1}, \boxed{2}" is "1, 2"). A box cut off before its closing brace
 * (a response truncated by the token budget) is no answer. One forward pass matches every brace, so the cost is
 * linear in the text whatever it holds: adjacent, nested or unclosed boxes.
 */
export function lastBoxed(text: string): string | null {
  const starts = boxCommandStarts(text);
  if (starts.length === 0) return null;
  const closeOf = matchBraces(text);
  const boxes: Span[] = [];
  for (let index = starts.length - 1; index >= 0; index--) {
    const [start, command] = starts[index]!;
    const box = boxAt(text, start, command, closeOf);
    if (box === null) continue;
    const next = boxes[boxes.length - 1];
    // A box that encloses the later one, or stands apart from it, ends the answer.
    if (next !== undefined && (box.end > next.start || !isSeparator(text.slice(box.end, next.start)))) break;
    boxes.push(box);
  }
  return boxes.length === 0
    ? null
    : boxes
        .reverse()
        .map((box) => box.content.trim())
        .join(', ');
}

/** Whether the text between two boxes only separates them; long gaps never do (and never reach the regex). */
function isSeparator(gap: string): boolean {
  return gap.length <= 40 && /^[\s,;$]*(?:and|or|\\text\{\s*(?:and|or)\s*\})?[\s,;$]*$/.test(gap);
}

/** Every occurrence of a box command, left to right, with the command found there. */
function boxCommandStarts(text: string): Array<readonly [number, string]> {
  const found: Array<readonly [number, string]> = [];
  for (let at = text.indexOf('\\'); at >= 0; at = text.indexOf('\\', at + 1)) {
    const command = boxCommands.find((candidate) => text.startsWith(candidate, at));
    if (command !== undefined) found.push([at, command]);
  }
  return found;
}

/** For every "{", the index of the brace closing it (honouring \{ and \}), or -1 when it is never closed. */
function matchBraces(text: string): Int32Array {
  const closeOf = new Int32Array(text.length).fill(-1);
  const open: number[] = [];
  for (let at = 0; at < text.length; at++) {
    const char = text[at];
    if (char === '\\') at += 1;
    else if (char === '{') open.push(at);
    else if (char === '}' && open.length > 0) closeOf[open.pop()!] = at;
  }
  return closeOf;
}

function boxAt(text: string, start: number, command: string, closeOf: Int32Array): Span | null {
  let at = start + command.length;
  while (text[at] === ' ') at += 1;
  if (text[at] !== '{') {
    // "\boxed 5": TeX reads the next token.
    const token = /^[^\s$,.]+/.exec(text.slice(at, at + 200))?.[0];
    return token && at > start + command.length ? { start, end: at + token.length, content: token } : null;
  }
  const close = closeOf[at]!;
  return close < 0 ? null : { start, end: close + 1, content: text.slice(at + 1, close) };
}

/** The last non-empty $...$, $$...$$, \(...\) or \[...\] span (the longer delimiter wins a tie). */
function lastMath(text: string): string | null {
  let best: Span | null = null;
  for (const [open, close] of [
    ['$$', '$$'],
    ['\\[', '\\]'],
    ['\\(', '\\)'],
    ['$', '$'],
  ] as const) {
    const closeAt = text.lastIndexOf(close);
    if (closeAt < 0) continue;
    const start = text.lastIndexOf(open, closeAt - 1);
    const content = start < 0 ? '' : text.slice(start + open.length, closeAt);
    const end = closeAt + close.length;
    if (content.trim() !== '' && (best === null || end > best.end)) best = { start, end, content };
  }
  return best?.content ?? null;
}
