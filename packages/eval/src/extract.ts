import {
  alternativeAfter,
  answerPhrase,
  bound,
  finalCopulas,
  rejectionBefore,
  rejectionGap,
  statedNumber,
  statingVerb,
} from './answer-words';
import { committedStatement, cutAtReason, dollarsPair, type Hedge, hedge } from './statement';

/**
 * The places an answer is looked for. The default order is Math-Verify's priorities; 'prose_answer' reads a one-line
 * answer in words around its mathematics ("odd $n$", "$g(x) = x^a$ for some $a > 0$"); 'short_answer' reads a
 * response that is only its answer ("28 percent", "-5", "it is 1,000.99"); 'last_line' a last line that is only
 * mathematics ("...\n42", a bare matrix); 'last_number' (Qwen's and
 * Math-Verify's last resort, the last number anywhere in the text) is opt-in because it credits answers the model
 * never committed to.
 */
export type ExtractionRule =
  | 'final_answer'
  | 'boxed'
  | 'answer_phrase'
  | 'prose_answer'
  | 'last_math'
  | 'short_answer'
  | 'last_line'
  | 'last_number';

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
  'prose_answer',
  'last_math',
  'short_answer',
  'last_line',
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
 * scans are linear (lastIndexOf and one brace-matching pass), so a megabyte of text costs milliseconds. A stated
 * answer (a final box, "final answer is", an answer phrase) commits: what follows it never replaces it, and a hedge
 * there ("either $3$ or $4$", "Answer: 5. Or maybe 7.") is no answer at all (issue 45; see statement.ts).
 */
export function extractAnswer(text: string, options: ExtractOptions = {}): string | null {
  const finalText = options.finalTextOnly === false ? text : finalAssistantText(text);
  for (const rule of options.rules ?? defaultExtractionRules) {
    const found = extractors[rule](finalText);
    if (found === hedge) return null;
    if (found !== null && found.trim() !== '') return found.trim();
  }
  return null;
}

const extractors: Record<ExtractionRule, (text: string) => string | Hedge | null> = {
  final_answer: (text) => {
    const match = lastMatch(text, /final answer is/gi);
    if (match === null) return null;
    const [line, following] = splitLine(text.slice(match));
    const tail = committedStatement(line, following);
    if (tail === hedge) return hedge;
    return lastBoxed(tail) ?? mathRun(tail) ?? stripSentenceEnd(tail);
  },
  boxed: (text) => {
    const run = lastBoxRun(text);
    if (run === null) return null;
    // "\boxed{5}. Or maybe 7.": an alternative offered after the box makes it a hedge.
    return alternativeAfter.test(text.slice(run.end, run.end + 40)) ? hedge : run.content;
  },
  answer_phrase: (text) => {
    const match = lastMatch(text, answerPhrase);
    if (match === null) return null;
    // The first non-empty line after the phrase ("Answer:\n12").
    const after = text.slice(match);
    const lineStart = after.search(/\S/);
    const [line, following] = splitLine(lineStart < 0 ? '' : after.slice(lineStart));
    const statement = committedStatement(line, following);
    return statement === hedge ? hedge : statedValue(statement);
  },
  prose_answer: (text) => {
    const line = text.trim();
    if (line.length > proseAnswerLength || line.includes('\n') || !line.includes('$')) return null;
    // Outside the math spans (every other piece between dollar signs, an unclosed last span included) only
    // qualifying words may stand: "odd", "for some", "where".
    const outside = line.split('$').filter((_, index) => index % 2 === 0);
    const words = outside.join(' ').match(/[A-Za-z]+/g) ?? [];
    if (words.length === 0 || !words.every((word) => qualifyingWords.has(word.toLowerCase()))) return null;
    return line.replace(/[\s.]+$/, '');
  },
  last_math: (text) => {
    // Math-Verify takes the rightmost of the last math span and the last plain number; we take a plain number
    // only when a sentence states it ("... is 2/3.", "there are 12 sequences") after the last math span.
    const math = lastUnrejectedMathSpan(text);
    const stated = lastStatedNumber(text);
    if (math === hedge)
      return stated !== null && stated.start >= lastMathSpan(text)!.end ? stated.content : hedge;
    if (stated !== null && (math === null || stated.start >= math.end)) return stated.content;
    if (math === null) return null;
    // "could be $3$ or $4$" offers two values: they join into one list, which equals neither.
    const lineStart = text.lastIndexOf('\n', math.start) + 1;
    const run = mathRun(text.slice(lineStart, math.end), { last: true });
    return run?.endsWith(math.content.trim()) ? run : math.content;
  },
  short_answer: (text) => {
    const trimmed = text.trim();
    // A cut-off box is no answer; prose ("Done.", "no answer here") is not an answer either.
    if (trimmed.length > shortAnswerLength || trimmed.includes('\n') || /\\(?:boxed|fbox)/.test(trimmed)) {
      return null;
    }
    if (looksLikeCode(trimmed)) return null;
    const value = statedValue(cutAtReason(trimmed));
    return value !== null && (startsLikeMath(value) || isRelation(value)) ? value : null;
  },
  last_line: (text) => {
    const lines = text.trimEnd().split('\n');
    const line = stripSentenceEnd(lines[lines.length - 1] ?? '');
    // A cut-off box is no answer here either.
    if (line === null || line.length > lastLineLength || looksLikeCode(line) || /boxed|\\fbox/.test(line)) {
      return null;
    }
    // Only mathematics: no words of two letters or more outside LaTeX commands and environment names.
    const words = line.replace(/\\[a-zA-Z]+(?:\{[a-zA-Z*]+\})?/g, ' ').match(/[A-Za-z]{2,}/g);
    return words === null && (startsLikeMath(line) || isRelation(line)) ? line : null;
  },
  last_number: (text) => {
    let last: string | null = null;
    for (const match of text.matchAll(/-?\d[\d,]*(?:\.\d+)?|-?\.\d+/g)) last = match[0];
    return last;
  },
};

/** A response of at most this many characters on one line may be only its answer. */
const shortAnswerLength = 80;
const proseAnswerLength = 240;
const lastLineLength = 400;

/** Words that qualify an answer's mathematics without stating anything of their own. */
const qualifyingWords = new Set(
  (
    'odd even all any every each some for where with when if and or positive negative nonnegative nonzero ' +
    'integer integers real reals prime primes natural number numbers arbitrary constant constants other only'
  ).split(' '),
);

/**
 * Text that is code, not an answer: dunder names, lambdas, imports, calls with string arguments, method calls.
 * "__import__('os').system('x') or 0" ends in a number that is no answer.
 */
function looksLikeCode(text: string): boolean {
  return /__|\blambda\b|\bimport\b|\(\s*['"]|['"]\s*[),\]]|[A-Za-z_]\.[A-Za-z_]+\(|[A-Za-z_]\(\)/.test(text);
}

/** A relation with a variable on the left: "x<2", "y \ge 1", "a_1 = 3". */
function isRelation(text: string): boolean {
  return /^[a-zA-Z](?:_\{?\w+\}?)?\s*(?:[<>=]|\\[lg]eq?\b|\\neq\b)/.test(text.trim());
}

/** A text's first line and the text after it. */
function splitLine(text: string): [line: string, following: string] {
  const end = text.indexOf('\n');
  return end < 0 ? [text, ''] : [text.slice(0, end), text.slice(end + 1)];
}

/**
 * The value a sentence states: "The largest $n$ is 34." is 34, not n. What follows the last "is" (or "it's",
 * "=") outside math spans when something follows, else its first math spans (joined when only separators stand
 * between them: "$3$ or $4$" is "3, 4"), else the sentence itself stripped of its full stop.
 */
function statedValue(sentence: string): string | null {
  const tail = lastMatch(sentence, statingVerb, { outsideGroups: true });
  if (tail !== null) {
    const stated = sentence.slice(tail);
    const found = mathRun(stated) ?? withoutUnopenedBracket(stripSentenceEnd(stated));
    if (found !== null && isAnswerLike(found)) return found;
  }
  const math = mathRun(sentence);
  if (math !== null) return math;
  const stripped = stripSentenceEnd(sentence);
  if (stripped === null || isAnswerLike(stripped)) return stripped;
  // "Final Answer: Jane started growing it 3 hours ago.": the one number of a sentence is its answer; a number
  // inside code ("__import__('os').system('x') or 0") is not.
  const numbers = stripped.match(numberPattern) ?? [];
  return numbers.length === 1 && !looksLikeCode(stripped) && !bound.test(stripped) ? numbers[0]! : stripped;
}

const numberPattern = /-?\d[\d,]*(?:\.\d+)?(?:\/\d+)?%?/g;

/** "(35 + 70 = 105)." states 105: a closing bracket the value never opened belongs to the sentence. */
function withoutUnopenedBracket(value: string | null): string | null {
  if (value === null || !value.endsWith(')')) return value;
  const opened = value.split('(').length - 1;
  const closed = value.split(')').length - 1;
  return closed > opened ? value.slice(0, -1).trimEnd() : value;
}

/** The last number a sentence states with a verb (statedNumber). */
function lastStatedNumber(text: string): Span | null {
  let found: Span | null = null;
  for (const match of text.matchAll(statedNumber)) {
    const content = (match[3] ?? match[2])!;
    found = { start: match.index, end: match.index + match[0].length, content };
  }
  return found;
}

/** A $...$ span; an escaped dollar (`$\\$18.90$`) neither opens nor closes one. */
const dollarSpan = /(?<!\\)\$((?:\\[\s\S]|[^\\$])+)\$/g;

/**
 * The first math span of a statement (or with `last`, the last), joined with the spans after (before) it while only
 * separators stand between them: "$12$ and $13$" is "12, 13", "$3$ or $4$" is "3, 4" (a list, which equals neither
 * of two alternatives). A statement's first span is what it commits to: `$n = 34$, the largest such $n$` is n = 34.
 */
function mathRun(text: string, { last = false } = {}): string | null {
  const spans = [...text.matchAll(dollarSpan)].filter((span) => span[1]!.trim() !== '');
  if (spans.length === 0) return lastMath(text);
  if (last) spans.reverse();
  const parts = [spans[0]!];
  for (const span of spans.slice(1)) {
    const previous = parts[parts.length - 1]!;
    const [left, right] = last ? [span, previous] : [previous, span];
    if (!isSeparator(text.slice(left.index + left[0].length, right.index))) break;
    parts.push(span);
  }
  if (last) parts.reverse();
  return parts.map((part) => part[1]!.trim()).join(', ');
}

/** A stated value starts like mathematics (a digit, sign, bracket, backslash) or is a short word or two. */
function isAnswerLike(text: string): boolean {
  return startsLikeMath(text) || text.trim().split(/\s+/).length <= 2;
}

function startsLikeMath(text: string): boolean {
  return /^[-+\d.([{\\|]/.test(text.trim());
}

/**
 * The answer of a gold. A bare answer ("5", "$x=1$", "\\text{(C)}") is itself; a gold that states its answer (a box,
 * "final answer is", an answer phrase: "Alina and the answer is\n(C) Cecile" is "(C) Cecile") is that answer; a
 * worked solution (Minerva's and OlympiadBench's golds) without one is its last math span, as Math-Verify parses its
 * gold with the same extraction as the prediction.
 */
export function extractGoldAnswer(gold: string): string {
  const stated = extractAnswer(gold, {
    rules: ['final_answer', 'boxed', 'answer_phrase'],
    finalTextOnly: false,
  });
  if (stated !== null) return stated;
  if (!isWorkedSolution(gold)) return gold;
  return extractAnswer(gold, { rules: ['last_math'], finalTextOnly: false }) ?? gold;
}

/** Prose around the mathematics: more than a few words outside math spans. */
function isWorkedSolution(gold: string): boolean {
  if (gold.length < 40) return false;
  const prose = gold.replace(/\$[^$]*\$/g, ' ');
  return (prose.match(/[a-zA-Z]{2,}/g) ?? []).length > 6;
}

export function finalAssistantText(text: string): string {
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

/**
 * Index just past the last match of a global regex, or null. `outsideGroups` skips matches inside a TeX group
 * (the "=" of \sum_{k=0}^n states no value) and inside a $...$ span (the "=" of "$n = 34$, the largest such $n$"
 * is the span's own).
 */
function lastMatch(text: string, pattern: RegExp, { outsideGroups = false } = {}): number | null {
  let end: number | null = null;
  // The brace depth and math parity at `scanned`, carried from match to match so the whole scan stays linear.
  let [scanned, depth, inMath] = [0, 0, false];
  const spans = outsideGroups && dollarsPair(text);
  for (const match of text.matchAll(pattern)) {
    for (; scanned < match.index; scanned++) {
      if (text[scanned] === '\\') scanned += 1;
      else if (text[scanned] === '{') depth += 1;
      else if (text[scanned] === '}') depth = Math.max(0, depth - 1);
      else if (text[scanned] === '$') inMath = spans && !inMath;
    }
    if (!outsideGroups || (depth === 0 && !inMath)) end = match.index + match[0].length;
  }
  return end;
}

/**
 * Trims spaces, a leading colon and a closing full stop (also "。" and a Japanese copula, "5です") with loops, not
 * regexes: the text may be megabytes.
 */
function stripSentenceEnd(text: string): string | null {
  let start = 0;
  let end = text.length;
  const isEnd = (char: string): boolean => char === '.' || char === '。' || char === '$' || /\s/.test(char);
  while (start < end && (text[start] === ':' || text[start] === '$' || /\s/.test(text[start]!))) start += 1;
  while (end > start && isEnd(text[end - 1]!)) end -= 1;
  const copula = finalCopulas.find((word) => end - word.length > start && text.endsWith(word, end));
  if (copula !== undefined) {
    end -= copula.length;
    while (end > start && isEnd(text[end - 1]!)) end -= 1;
  }
  return start === end ? null : text.slice(start, end);
}

export interface Span {
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
  return lastBoxRun(text)?.content ?? null;
}

/** The last run of boxes (lastBoxed): its joined content, where it ends, and its boxes in order. */
export function lastBoxRun(text: string): { content: string; end: number; boxes: readonly Span[] } | null {
  const starts = boxCommandStarts(text);
  if (starts.length === 0) return null;
  const closeOf = matchBraces(text);
  const boxes: Span[] = [];
  const contents = new Set<string>();
  for (let index = starts.length - 1; index >= 0; index--) {
    const [start, command] = starts[index]!;
    const box = boxAt(text, start, command, closeOf);
    if (box === null) continue;
    const next = boxes[boxes.length - 1];
    // A box that encloses the later one, or stands apart from it, ends the answer.
    if (next !== undefined && (box.end > next.start || !isSeparator(text.slice(box.end, next.start)))) break;
    // A run that repeats a box ("\boxed{9} \boxed{9} ... \boxed{42}") is restated attempts, not a list of
    // answers: the last box alone is the answer.
    if (contents.has(box.content.trim())) {
      const lastBox = boxes[0]!;
      return { content: lastBox.content.trim(), end: lastBox.end, boxes: [lastBox] };
    }
    contents.add(box.content.trim());
    boxes.push(box);
  }
  if (boxes.length === 0) return null;
  boxes.reverse();
  return {
    content: boxes.map((box) => box.content.trim()).join(', '),
    end: boxes[boxes.length - 1]!.end,
    boxes,
  };
}

/**
 * Whether the text between two boxes only separates them: punctuation, "and" / "or" with up to four words before
 * it ("\\boxed{1} papers and \\boxed{2}", "\\quad\\text{and}\\quad"), and a label before the next box
 * ("y_1 = \\boxed{..} and y_2 = \\boxed{..}"). Long gaps never do (and never reach the regexes).
 */
function isSeparator(gap: string): boolean {
  if (gap.length > 60) return false;
  const words = gap
    .replace(/\\(?:quad|qquad|[,;:!\s]|\(|\))|\$|~/g, ' ')
    .replace(/\\(?:text|textrm|mbox|mathrm)\s*\{([^{}]*)\}/g, ' $1 ')
    .replace(/[A-Za-z](?:_\{?\w+\}?)?\s*=\s*$/, ' ');
  return /^[\s,;]*(?:(?:[A-Za-z()]+\s+){0,4}(?:and|or)\b)?[\s,;.]*$/.test(words);
}

/**
 * Every occurrence of a box command, left to right, with the command found there: \boxed and \fbox, and the
 * malformed "boxed{19}" / "boxed {19}" (no backslash, as Qwen's extraction also reads it) and "\beginboxed{..}".
 */
function boxCommandStarts(text: string): Array<readonly [number, string]> {
  const found: Array<readonly [number, string]> = [];
  for (let at = text.indexOf('\\'); at >= 0; at = text.indexOf('\\', at + 1)) {
    const command = boxCommands.find((candidate) => text.startsWith(candidate, at));
    if (command !== undefined) found.push([at, command]);
  }
  for (let at = text.indexOf('boxed'); at >= 0; at = text.indexOf('boxed', at + 1)) {
    if (text[at - 1] === '\\') continue;
    const start = text.endsWith('\\begin', at) ? at - '\\begin'.length : at;
    if (start === at && /[A-Za-z]/.test(text[at - 1] ?? '')) continue;
    if (!/^\s*\{/.test(text.slice(at + 5, at + 50))) continue;
    found.push([start, text.slice(start, at + 5)]);
  }
  return found.sort((a, b) => a[0] - b[0]);
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
    if (!command.startsWith('\\')) return null;
    // "\boxed 5": TeX reads the next token.
    const token = /^[^\s$,.]+/.exec(text.slice(at, at + 200))?.[0];
    return token && at > start + command.length ? { start, end: at + token.length, content: token } : null;
  }
  const close = closeOf[at]!;
  return close < 0 ? null : { start, end: close + 1, content: text.slice(at + 1, close) };
}

/**
 * The last math span, unless a rejection word precedes it: then the span that rejection follows ("$6$, not $5$" is
 * 6), or a hedge when it follows none ("So $x$ is not $5$." states no value: a rejected value is never the answer).
 */
function lastUnrejectedMathSpan(text: string): Span | Hedge | null {
  const span = lastMathSpan(text);
  if (span === null || !isRejected(text, span)) return span;
  const previous = lastMathSpan(text.slice(0, span.start));
  if (previous === null || isRejected(text, previous)) return hedge;
  return rejectionGap.test(text.slice(previous.end, span.start)) ? previous : hedge;
}

const isRejected = (text: string, span: Span): boolean =>
  rejectionBefore.test(text.slice(Math.max(0, span.start - 24), span.start));

/** The content of the last non-empty $...$, $$...$$, \(...\) or \[...\] span. */
function lastMath(text: string): string | null {
  return lastMathSpan(text)?.content ?? null;
}

/** The last non-empty $...$, $$...$$, \(...\) or \[...\] span (the longer delimiter wins a tie). */
function lastMathSpan(text: string): Span | null {
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
    // Inline math ($...$, \(...\)) stays on one line; a span across lines pairs unrelated dollar signs.
    const inline = open === '$' || open === '\\(';
    if (inline && content.includes('\n')) continue;
    if (content.trim() !== '' && (best === null || end > best.end)) best = { start, end, content };
  }
  return best;
}
