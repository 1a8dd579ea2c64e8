import { finalAssistantText, lastBoxed } from '../extract';

/** Where a chosen option was read from, strongest first (the order extraction tries them). */
export type ChoiceRule = 'boxed' | 'answer_phrase' | 'last_line' | 'option_text';

export interface ChoiceOptions {
  /** The option letters, in order. Default 'ABCD' (GPQA). */
  readonly letters?: string;
  /** The options' texts in letter order: an answer that states an option's text picks its letter. */
  readonly optionTexts?: readonly string[];
}

export interface ExtractedChoice {
  readonly letter: string;
  readonly rule: ChoiceRule;
}

/**
 * The option a response chose, or null when it chose none or more than one. Tried in order, each from the right:
 * the last `\boxed{...}` ("C", "(C)", "\text{C}", "C. 42", or an option's text), the last answer phrase
 * ("Answer: C", "the correct answer is (B)", "**Final answer:** D"), the last non-empty line when it is only a
 * letter ("C", "(C).", "**C**"), then the last line or phrase equal to an option's text. A span that names two
 * different letters ("A or B") is no choice: a reward must not pay for hedging.
 */
export function extractChoice(response: string, options: ChoiceOptions = {}): ExtractedChoice | null {
  const letters = options.letters ?? 'ABCD';
  validateLetters(letters);
  const text = finalAssistantText(response);
  const readers: readonly [ChoiceRule, () => string | null][] = [
    ['boxed', () => letterOfStatement(lastBoxed(text), letters, options.optionTexts)],
    ['answer_phrase', () => letterOfStatement(lastAnswerPhrase(text), letters, options.optionTexts)],
    ['last_line', () => bareLetter(lastLine(text), letters)],
    ['option_text', () => letterOfOptionText(lastLine(text), options.optionTexts, letters)],
  ];
  for (const [source, read] of readers) {
    const letter = read();
    if (letter !== null) return { letter, rule: source };
  }
  return null;
}

function validateLetters(letters: string): void {
  if (!/^[A-Z]{2,26}$/.test(letters) || new Set(letters).size !== letters.length) {
    throw new RangeError(`extractChoice: letters must be 2-26 distinct capitals, got "${letters}"`);
  }
}

const answerPhrase = /(?:final\s+answer|correct\s+(?:answer|option|choice)|answer)\s*(?:is|:|=)/gi;

/**
 * The rest of the line after the last answer phrase, or null. After "Answer:" a lone lower-case letter ("answer: b",
 * as simple-evals' case-insensitive pattern reads it) is taken as its capital; "answer: a prime" stays prose.
 */
function lastAnswerPhrase(text: string): string | null {
  let last: RegExpExecArray | null = null;
  for (let match = answerPhrase.exec(text); match !== null; match = answerPhrase.exec(text)) last = match;
  answerPhrase.lastIndex = 0;
  if (last === null) return null;
  const rest = text.slice(last.index + last[0].length);
  const line = rest.split('\n').find((part) => part.trim() !== '') ?? null;
  if (line === null || !last[0].endsWith(':')) return line;
  return line.replace(
    /^(\s*[*$(]*)([a-z])(?=[*$).,]*\s*$)/,
    (_, before: string, letter: string) => `${before}${letter.toUpperCase()}`,
  );
}

function lastLine(text: string): string | null {
  const lines = text.split('\n');
  for (let index = lines.length - 1; index >= 0; index--) {
    const line = lines[index]!.trim();
    if (line !== '') return line;
  }
  return null;
}

/** Markdown emphasis, TeX text wrappers, math delimiters and the words that often precede a letter. */
function unwrap(statement: string): string {
  return statement
    .replace(/\\(?:text|textbf|mathrm|mathbf|textit)\s*\{([^{}]*)\}/g, '$1')
    .replace(/[*_$`]/g, '')
    .replace(/^\s*[:\-–—]\s*/, '')
    .replace(/^\s*(?:option|choice)\s+/i, '')
    .trim();
}

/**
 * The letter whose option text the statement is; else the letter it starts with when that letter stands alone
 * ("C", "(C)", "C.", "C) 42", "C: 42", "(C) 42", "C. x = 42", but not the article of "A hydrogen atom"). A statement
 * naming another letter as well ("A or B", "(A) and (C)") gives none.
 */
function letterOfStatement(
  statement: string | null,
  letters: string,
  optionTexts: readonly string[] | undefined,
): string | null {
  if (statement === null) return null;
  const plain = unwrap(statement);
  const byText = letterOfOptionText(plain, optionTexts, letters);
  if (byText !== null) return byText;
  const leading = new RegExp(`^(?:\\(([${letters}])\\)|([${letters}])(?=$|[.):,]))`).exec(plain);
  if (leading !== null) {
    const letter = (leading[1] ?? leading[2])!;
    const others = new RegExp(`(?:^|[\\s(,])\\(?([${letters}])\\)?(?=$|[\\s.,)])`, 'g');
    const named = new Set([...plain.matchAll(others)].map((match) => match[1]));
    const hedged = /\b(?:or|and)\b/i.test(plain) && [...named].some((other) => other !== letter);
    return hedged ? null : letter;
  }
  return null;
}

/** A line that is only a letter: "C", "(C)", "C.", "**C**", "\boxed{C}" having been handled before. */
function bareLetter(line: string | null, letters: string): string | null {
  if (line === null) return null;
  const match = new RegExp(`^\\(?([${letters}])\\)?\\.?$`).exec(unwrap(line));
  return match === null ? null : match[1]!;
}

function letterOfOptionText(
  statement: string | null,
  optionTexts: readonly string[] | undefined,
  letters: string,
): string | null {
  if (statement === null || optionTexts === undefined) return null;
  const wanted = normalizeOptionText(statement);
  if (wanted === '') return null;
  const matches = optionTexts.flatMap((option, index) =>
    normalizeOptionText(option) === wanted ? [letters[index]!] : [],
  );
  return matches.length === 1 ? matches[0]! : null;
}

/** Case, spacing, math delimiters, emphasis and a closing period do not change which option a text names. */
export function normalizeOptionText(text: string): string {
  return unwrap(text)
    .replace(/\s+/g, ' ')
    .replace(/[.\s]+$/, '')
    .trim()
    .toLowerCase();
}
