import { extractChoice } from './choice/extract-choice';
import type { CompareContext, PercentPolicy } from './compare/context';
import { proseKey } from './compare/prose';
import { expressionsEqual, normaliseWords } from './compare/structure';
import { type ExtractOptions, extractAnswer, extractGoldAnswer } from './extract';
import type { Expr } from './latex/ast';
import { ParseError, parseLatex } from './latex/parse';
import { Deadline, defaultLimits, type Limits, TimeoutError, TooLargeError } from './limits';
import { type NormalizedAnswer, normalizeAnswer, timeOfDay } from './normalize';

export interface GradeOptions {
  /** Relative tolerance for floating-point comparison (default 1e-6). */
  readonly relTol?: number;
  /** How a percent sign relates to plain numbers (default 'either'). */
  readonly percent?: PercentPolicy;
  readonly limits?: Partial<Limits>;
  readonly extraction?: ExtractOptions;
}

/**
 * Why a verdict was reached. equivalent / not_equivalent are ordinary verdicts; the others are all "incorrect" for
 * the reward but say why: nothing extracted, unreadable, or refused by a bound.
 */
export type GradeReason =
  | 'equivalent'
  | 'not_equivalent'
  | 'no_answer'
  | 'unparsable'
  | 'timeout'
  | 'too_large';

/** What `compareAnswers` found: whether two answers are equivalent, and why. */
export interface AnswerComparison {
  readonly equivalent: boolean;
  readonly reason: GradeReason;
}

export interface GradeResult {
  readonly correct: boolean;
  /** The answer extracted from the response, or null. */
  readonly extracted: string | null;
  readonly gold: string | readonly string[];
  readonly reason: GradeReason;
}

/** Several golds (OlympiadBench lists) mean "any of them". */
export type Gold = string | readonly string[];

/** Whether a predicted answer (already extracted) is mathematically the same as the gold answer. */
export function isEquivalent(pred: string, gold: Gold, options: GradeOptions = {}): boolean {
  return compareAnswers(pred, gold, options).equivalent;
}

/**
 * Extracts the answer from a full model response and grades it against the gold; a gold given as a worked
 * solution is reduced to its own final answer first (extractGoldAnswer).
 */
export function grade(response: string, gold: Gold, options: GradeOptions = {}): GradeResult {
  const goldAnswers = typeof gold === 'string' ? extractGoldAnswer(gold) : gold.map(extractGoldAnswer);
  let extracted = extractAnswer(response, options.extraction);
  // A multiple-choice gold: the option letter the response commits to ("C. x = 42", "the answer is D, not A"),
  // whatever the option's text states.
  const goldIsChoice = (typeof goldAnswers === 'string' ? [goldAnswers] : goldAnswers).some(
    (answer) => choiceLetter(normalizeAnswer(answer).text) !== null,
  );
  // An answer over the length bound names no letter (and is never normalised: normalising megabytes is slow).
  const maxLength = options.limits?.maxAnswerLength ?? defaultLimits.maxAnswerLength;
  const namesLetter = (answer: string): boolean =>
    answer.length <= maxLength && choiceLetter(normalizeAnswer(answer).text) !== null;
  if (goldIsChoice && (extracted === null || !namesLetter(extracted))) {
    const finalTextOnly = options.extraction?.finalTextOnly;
    extracted = extractChoice(response, { letters: 'ABCDE', finalTextOnly })?.letter ?? extracted;
  }
  if (extracted === null) return { correct: false, extracted, gold, reason: 'no_answer' };
  const verdict = compareAnswers(extracted, goldAnswers, options);
  return { correct: verdict.equivalent, extracted, gold, reason: verdict.reason };
}

/** isEquivalent with the reason of its verdict. */
export function compareAnswers(pred: string, gold: Gold, options: GradeOptions = {}): AnswerComparison {
  checkOptions(options);
  const golds = typeof gold === 'string' ? [gold] : gold;
  let worst: AnswerComparison = { equivalent: false, reason: 'not_equivalent' };
  for (const candidate of golds) {
    const verdict = compareOne(pred, candidate, options);
    if (verdict.equivalent) return verdict;
    if (verdict.reason !== 'not_equivalent') worst = verdict;
  }
  return worst;
}

function compareOne(pred: string, gold: string, options: GradeOptions): AnswerComparison {
  const limits = { ...defaultLimits, ...options.limits };
  if (pred.length > limits.maxAnswerLength || gold.length > limits.maxAnswerLength) {
    return { equivalent: false, reason: 'too_large' };
  }
  const [predAnswer, goldAnswer] = [normalizeAnswer(pred), normalizeAnswer(gold)];
  const p = withDecimalPoint(predAnswer, goldAnswer.text);
  const g = withDecimalPoint(goldAnswer, predAnswer.text);
  if (p.units.length > 0 && g.units.length > 0 && p.units.join(' ') !== g.units.join(' ')) {
    // Both answers name a unit and the units differ: the same number is a different quantity.
    return verdict(false);
  }
  if (squeeze(p.text) === squeeze(g.text) && p.percent === g.percent)
    return { equivalent: true, reason: 'equivalent' };
  const choices = [choiceLetter(p.text), choiceLetter(g.text)];
  if (choices[0] !== null && choices[1] !== null) return verdict(choices[0] === choices[1]);
  const times = [timeOfDay(pred), timeOfDay(gold)];
  if (times[0] !== null && times[1] !== null) return verdict(times[0] === times[1]);
  const context: CompareContext = {
    relTol: options.relTol ?? 1e-6,
    percent: options.percent ?? 'either',
    deadline: new Deadline(limits.timeBudgetMs),
    predPercent: p.percent,
    goldPercent: g.percent,
    percentBinding: p.percentBinding || g.percentBinding,
  };
  try {
    const goldExpr = parseOrText(g.text, limits);
    const predExpr = parseOrText(p.text, limits);
    if (predExpr === null || goldExpr === null || predExpr.kind === 'text' || goldExpr.kind === 'text') {
      // Words only ("\\text{Evelyn}", "no solution") compare as words; prose with mathematics in it ("odd $n$",
      // "... for some $a>0$") as written, so "a > 0" never matches "a < 0".
      const [pKey, gKey] =
        isWords(p.text) && isWords(g.text)
          ? [wordsOf(p.text), wordsOf(g.text)]
          : [proseKey(p.text), proseKey(g.text)];
      if (pKey !== '' && pKey === gKey) return verdict(true);
      // Different words are an ordinary miss; an answer that is neither mathematics nor words says so.
      const unreadable = predExpr === null || goldExpr === null;
      return { equivalent: false, reason: unreadable ? 'unparsable' : 'not_equivalent' };
    }
    return verdict(expressionsEqual(predExpr, goldExpr, context));
  } catch (error) {
    if (error instanceof TimeoutError) return { equivalent: false, reason: 'timeout' };
    if (error instanceof TooLargeError) return { equivalent: false, reason: 'too_large' };
    if (error instanceof RangeError) return { equivalent: false, reason: 'not_equivalent' };
    throw error;
  }
}

/**
 * A European decimal comma ("1000,99", "2,74") read as a point when the other answer is a number written with a
 * point. A comma that groups thousands (1,000) was removed by normalizeAnswer; any other comma between digits
 * separates list items ("1,5" is 1 and 5) unless the other answer is one decimal number.
 */
function withDecimalPoint(answer: NormalizedAnswer, other: string): NormalizedAnswer {
  if (!/^-?\d+,\d+$/.test(answer.text) || !/^-?\d*\.\d+$/.test(other)) return answer;
  return { ...answer, text: answer.text.replace(',', '.') };
}

const percentPolicies: readonly PercentPolicy[] = ['either', 'strip', 'ratio'];

/** Rejects option values that would silently change every verdict (a typo in a config file). */
function checkOptions(options: GradeOptions): void {
  if (options.relTol !== undefined && !(options.relTol >= 0 && Number.isFinite(options.relTol))) {
    throw new RangeError(`grade options: relTol must be a finite number >= 0, got ${options.relTol}`);
  }
  if (options.percent !== undefined && !percentPolicies.includes(options.percent)) {
    throw new RangeError(
      `grade options: percent must be one of ${percentPolicies.join(', ')}, got "${options.percent}"`,
    );
  }
  for (const [name, value] of Object.entries(options.limits ?? {})) {
    if (!(name in defaultLimits)) {
      throw new RangeError(
        `grade options: unknown limit "${name}"; known: ${Object.keys(defaultLimits).join(', ')}`,
      );
    }
    if (typeof value !== 'number' || !(value >= 0)) {
      throw new RangeError(`grade options: limits.${name} must be a number >= 0, got ${value}`);
    }
  }
}

const verdict = (equivalent: boolean): AnswerComparison => ({
  equivalent,
  reason: equivalent ? 'equivalent' : 'not_equivalent',
});
/**
 * The option letter of a multiple-choice answer: "C", "(C)", "\\text{(C)}", and an option with its text, "(C) 12"
 * or "\\textbf{(C) } 12"; null for anything else. Two answers that both name an option agree when the letters do.
 */
function choiceLetter(text: string): string | null {
  const bare = text.replace(/\\(?:text|textbf|mathrm|mbox)\s*\{([^{}]*)\}/g, '$1').trim();
  const alone = /^\(?([A-E])\)?\.?$/.exec(bare);
  if (alone) return alone[1]!;
  // The option's text follows the letter; an operator there ("(C) + 1") makes it an expression instead, and
  // another letter ("(C)(A)") a list of options.
  const withText = /^\(([A-E])\)\s*(?!\(?[A-E]\))[\w$\\(]/.exec(bare);
  return withText ? withText[1]! : null;
}

/** Words of an answer that is text: \text{(C)} and C, \text{Evelyn} and evelyn agree. */
const wordsOf = (text: string): string => normaliseWords(text.replace(/\\[a-zA-Z]+/g, ''));
const squeeze = (text: string): string => text.replace(/\s+/g, '');
/** Letters, spaces and punctuation only, once LaTeX text wrappers are removed. */
const isWords = (text: string): boolean =>
  /^[a-zA-Z\s,.'()-]*$/.test(text.replace(/\\(?:text|textrm|textbf|mathrm|mbox)\s*\{([^{}]*)\}/g, '$1'));

function parseOrText(text: string, limits: Limits): Expr | null {
  try {
    return parseLatex(text, limits);
  } catch (error) {
    if (error instanceof ParseError) return null;
    throw error;
  }
}
