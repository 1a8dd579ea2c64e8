import { alternativeAfter, foreignAnswerPhrase, joinWord } from '../answer-words';
import { finalAssistantText, lastBoxRun } from '../extract';
import { type Hedge, hedge } from '../statement';

/** Where a chosen option was read from, strongest first (the order extraction tries them). */
export type ChoiceRule = 'boxed' | 'answer_phrase' | 'last_line' | 'opening' | 'closing' | 'option_text';

export interface ChoiceOptions {
  /** The option letters, in order. Default 'ABCD' (GPQA). */
  readonly letters?: string;
  /** The options' texts in letter order: an answer that states an option's text picks its letter. */
  readonly optionTexts?: readonly string[];
  /** Read only the final assistant turn (default true), as extractAnswer does. */
  readonly finalTextOnly?: boolean;
}

export interface ExtractedChoice {
  readonly letter: string;
  readonly rule: ChoiceRule;
}

/** What one reader found: a letter, nothing, or a hedge between letters (which ends the search: no choice). */
type Reading = string | null | Hedge;

/**
 * The option a response chose, or null when it chose none or hedged. Tried in order, each from the right: the last
 * `\boxed{...}` ("C", "(C)", "\text{C}", "C. 42", or an option's text); the last answer phrase ("Answer: C", "the
 * correct answer is (B)", "The answer is for sure D, it can't be A", "réponse est C non A"; never a letter after
 * "not"); the last non-empty line when it is only a letter ("C", "(C).", "**C**"); a letter the response opens with
 * ("C. x = 42", "(B) 12", "B。不是 A"; "A good start" is an article); a letter that ends it ("... therefore I think it's
 * B"); then the last line or phrase equal to an option's text. A box or answer phrase naming two letters ("A or B",
 * "(A) and (C)") is no choice: a reward must not pay for hedging. One extractor serves both the GPQA grader
 * (gradeChoice) and grade() against an option-letter gold.
 */
export function extractChoice(response: string, options: ChoiceOptions = {}): ExtractedChoice | null {
  const letters = options.letters ?? 'ABCD';
  validateLetters(letters);
  const text = options.finalTextOnly === false ? response : finalAssistantText(response);
  const readers: readonly [ChoiceRule, () => Reading][] = [
    ['boxed', () => boxedLetter(text, letters, options.optionTexts)],
    ['answer_phrase', () => letterOfStatement(lastAnswerPhrase(text), letters, options.optionTexts, true)],
    ['last_line', () => lastLineLetter(text, letters)],
    ['opening', () => openingLetter(text, letters)],
    ['closing', () => closingLetter(text, letters)],
    ['option_text', () => letterOfOptionText(lastLine(text), options.optionTexts, letters)],
  ];
  for (const [rule, read] of readers) {
    const letter = read();
    if (letter === hedge) return null;
    if (letter !== null) return { letter, rule };
  }
  return null;
}

function validateLetters(letters: string): void {
  if (!/^[A-Z]{2,26}$/.test(letters) || new Set(letters).size !== letters.length) {
    throw new RangeError(`extractChoice: letters must be 2-26 distinct capitals, got "${letters}"`);
  }
}

/** English answer phrases, and another language's noun "answer" before a colon or a stating verb ("答案是"). */
const answerPhrase = new RegExp(
  String.raw`(?:final\s+answer|correct\s+(?:answer|option|choice)|answer|choice|option)\s*(?:is|:|=)|${foreignAnswerPhrase}`,
  'giu',
);

/**
 * The rest of the line after the last answer phrase, or null. Letters are capitals: "answer: b" names no option
 * (simple-evals' GPQA matches it case-insensitively but scores "b" against "B" as wrong; lighteval's
 * gpqa_instruct_metric test reads no letter there), and "the answer is a prime" stays prose.
 */
function lastAnswerPhrase(text: string): string | null {
  let last: RegExpExecArray | null = null;
  for (let match = answerPhrase.exec(text); match !== null; match = answerPhrase.exec(text)) last = match;
  answerPhrase.lastIndex = 0;
  if (last === null) return null;
  const rest = text.slice(last.index + last[0].length);
  return rest.split('\n').find((part) => part.trim() !== '') ?? null;
}

function lastLine(text: string): string | null {
  return lastLines(text, 1)[0] ?? null;
}

/** Up to `count` last non-empty lines, trimmed, the last first. */
function lastLines(text: string, count: number): string[] {
  const found: string[] = [];
  let end = text.length;
  while (found.length < count && end > 0) {
    const start = text.lastIndexOf('\n', end - 1);
    const line = text.slice(start + 1, end).trim();
    if (line !== '') found.push(line);
    end = Math.max(start, 0);
  }
  return found;
}

/**
 * The letter of the last box. Boxes written side by side (`\boxed{C}\boxed{A}`) are restatements: the last one is
 * the choice. Boxes joined by a comma, "or" or "and" (`\boxed{B} or \boxed{C}`) list options, and a box followed by
 * an alternative ("\boxed{B}. Or maybe C") is a hedge.
 */
function boxedLetter(text: string, letters: string, optionTexts: readonly string[] | undefined): Reading {
  const run = lastBoxRun(text);
  if (run === null) return null;
  if (alternativeAfter.test(text.slice(run.end, run.end + 40))) return hedge;
  const { boxes } = run;
  const sideBySide = boxes.every(
    (box, index) => index === 0 || text.slice(boxes[index - 1]!.end, box.start).trim() === '',
  );
  const statement = sideBySide ? boxes[boxes.length - 1]!.content : run.content;
  return letterOfStatement(statement, letters, optionTexts);
}

/** A last line that is only a letter, unless the line before it is another letter: `A\nB\nC\nD` lists options. */
function lastLineLetter(text: string, letters: string): Reading {
  const [last, before] = lastLines(text, 2);
  const letter = bareLetter(last ?? null, letters);
  if (letter === null) return null;
  const previous = bareLetter(before ?? null, letters);
  return previous !== null && previous !== letter ? hedge : letter;
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
 * Words of certainty between an answer phrase and its letter ("is for sure D", "is definitely (C)"). A closed list:
 * any word would let "the answer is hepatitis B" or "vitamin C" name an option.
 */
const fillerWords =
  /^(?:(?:for\s+sure|surely|definitely|clearly|certainly|obviously|probably|most\s+likely|likely|indeed|then|therefore|thus|hence|simply|just|actually|really|option|choice|letter)\s+){1,3}/i;

/**
 * The letter whose option text the statement is; else the letter it starts with when that letter stands alone
 * ("C", "(C)", "C.", "C) 42", "C: 42", "(C) 42", "C. x = 42", "C, it can't be A", "C non A", but not the article of
 * "A hydrogen atom"). A letter joined to another by "or"/"and" ("A or B", "(A) and (C)") is a hedge.
 */
function letterOfStatement(
  statement: string | null,
  letters: string,
  optionTexts: readonly string[] | undefined,
  afterPhrase = false,
): Reading {
  if (statement === null) return null;
  const plain = unwrap(statement);
  const byText = letterOfOptionText(plain, optionTexts, letters);
  if (byText !== null) return byText;
  const candidates = afterPhrase ? [plain, plain.replace(fillerWords, '')] : [plain];
  const lower = letters.toLowerCase();
  for (const candidate of candidates) {
    if (isLetterList(candidate, letters)) return hedge;
    // A capital alone or in brackets; a small letter only as an option label, with its bracket ("c) Argon").
    const leading = new RegExp(
      `^(?:\\(([${letters}${lower}])\\)|([${lower}])\\)|([${letters}])(?=$|[.):,;!。，]|\\s+(?:not|non|pas)\\b|[^\\x00-\\x7F]))`,
    ).exec(candidate);
    if (leading === null) continue;
    const letter = (leading[1] ?? leading[2] ?? leading[3])!.toUpperCase();
    // "c) Nitrogen" where C is Argon names two options: no choice.
    const rest = candidate.slice(leading[0].length).replace(/^[\s.):,;]+/, '');
    const named = letterOfOptionText(rest, optionTexts, letters);
    return named !== null && named !== letter ? hedge : letter;
  }
  return null;
}

/**
 * Two or more different letters listed at the start of a statement: "A or B", "(A) and (C)", "A, C", "(C)(A)",
 * "A, B, C, or D", "B/C". A list of options is never a choice.
 */
function isLetterList(statement: string, letters: string): boolean {
  const letter = `(?:\\(([${letters}])\\)|([${letters}])(?![A-Za-z0-9]))`;
  // One way to read each run of spaces (none between two optional \s*): a megabyte of them stays linear.
  const separator = `\\s*(?:[,/;&]\\s*)?(?:(?:${joinWord})\\s*)?`;
  const list = new RegExp(`^${letter}(?:${separator}${letter})+`, 'u').exec(statement);
  if (list === null) return false;
  const named = list[0].match(new RegExp(`[${letters}]`, 'g')) ?? [];
  return new Set(named).size > 1;
}

/** A line that is only a letter: "C", "(C)", "C.", "**C**", "\boxed{C}" having been handled before. */
function bareLetter(line: string | null, letters: string): string | null {
  if (line === null) return null;
  const match = new RegExp(`^\\(?([${letters}])\\)?\\.?$`).exec(unwrap(line));
  return match === null ? null : match[1]!;
}

/**
 * "A" opens many an English sentence, so an opening letter counts only with a bracket, a stop or a colon after it;
 * and not when other lines open with other options' labels: "A) ...\nB) ..." goes through the options (or restates
 * them), it chooses none.
 */
function openingLetter(text: string, letters: string): string | null {
  const opening = new RegExp(
    `^\\s*\\(?([${letters}])\\)?(?![A-Za-z0-9])(?:\\s*$|[.):。，,]|(?=[^\\x00-\\x7F]))`,
  );
  const letter = opening.exec(text)?.[1];
  if (letter === undefined) return null;
  const labels = text.matchAll(new RegExp(`\\n\\s*(?:\\*\\*)?\\(?([${letters}])[).:]`, 'g'));
  for (const label of labels) if (label[1] !== letter) return null;
  return letter;
}

/**
 * A letter the response ends with after a word that states a choice ("therefore I think it's B.", "so I pick (C)"),
 * never after a negation ("... not A") or as the end of a name ("... rich in vitamin C.").
 */
function closingLetter(text: string, letters: string): string | null {
  const tail = text.slice(-200);
  const closing = new RegExp(`(?:^|\\s)\\(?([${letters}])\\)?[\\s.!)]*$`).exec(tail);
  if (closing === null) return null;
  const before = tail.slice(0, closing.index);
  if (/(?:\bnot|\bnever|\bnon|n't(?:\s+be)?)\s*$/i.test(before)) return null;
  return choiceWordBefore.test(before) ? closing[1]! : null;
}

const choiceWordBefore =
  /(?:\b(?:it's|it\s+is|is|be|was|choose|chose|pick|picked|select|selected|go\s+with|so|thus|hence|therefore)|[:=])\s*$/i;

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
