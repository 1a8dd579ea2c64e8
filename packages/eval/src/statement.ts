import { alternativeAfter, hedgedAlternative, reasonStart, rejectionStart } from './answer-words';

/**
 * What a reader returns for a hedge: the response offered alternatives ("either 3 or 4", "Answer: 5. Or maybe 7.",
 * "A, B, C, or D"), so it committed to nothing and the search for an answer stops there (issue 45).
 */
export const hedge: unique symbol = Symbol('hedge');
export type Hedge = typeof hedge;

/** How far past a stated answer a word offering an alternative is looked for ("... Or maybe 7."). */
const alternativeWindow = 40;

/**
 * The statement a stated answer commits to (issue 45), given the line after its anchor ("the answer is",
 * "Answer:", "final answer is", a box) and the text that follows that line. The line ends at its first sentence end
 * after a value (a later check, a P.S. or another span never replaces the answer: `$7$. I hope. $42$` states 7), at
 * a word rejecting another value (`6, not 5` states 6; a statement that opens with one, `not $5$`, states nothing),
 * at a reason (`42 because ...`) and at Minerva's closing formula. An alternative offered right after it (`5. Or
 * maybe 7.`) or with a hedge inside it (`$3$ or maybe $4$`) makes it a hedge.
 */
export function committedStatement(line: string, following = ''): string | Hedge {
  const hoped = cutAtHope(line);
  const end = sentenceEnd(hoped);
  const rest = hoped.slice(end, end + alternativeWindow);
  const after = rest.length < alternativeWindow ? rest + following.slice(0, alternativeWindow) : rest;
  if (alternativeAfter.test(after)) return hedge;
  const statement = cutAtRejection(hoped.slice(0, end));
  if (statement === hedge) return hedge;
  const reasoned = cutAtReason(statement);
  return hedgedAlternative.test(reasoned) ? hedge : reasoned;
}

/**
 * The index of the first sentence end after a value, or the line's length: a full stop, "!" or "?" followed by a
 * space or the line's end, a CJK stop, or a semicolon before words ("; substituting back, ..."). Stops inside math
 * spans and TeX groups, and the points of numbers (`3.5`), end nothing. One pass: the line may be megabytes.
 */
export function sentenceEnd(line: string): number {
  const spans = dollarsPair(line);
  let [depth, inMath, valueSeen] = [0, false, false];
  for (let at = 0; at < line.length; at++) {
    const char = line[at]!;
    if (char === '\\') {
      at += 1;
      valueSeen = true;
    } else if (char === '$') {
      inMath = spans && !inMath;
      valueSeen = true;
    } else if (char === '{') depth += 1;
    else if (char === '}') depth = Math.max(0, depth - 1);
    else if (!inMath && depth === 0 && valueSeen && endsSentence(line, at)) return at;
    else if (!valueSeen && /[\p{L}\p{N})\]]/u.test(char)) valueSeen = true;
  }
  return line.length;
}

/**
 * Whether the text's unescaped dollar signs pair up into math spans; an odd count means one is currency ("30 $."),
 * and then none is read as a delimiter.
 */
export function dollarsPair(text: string): boolean {
  let count = 0;
  for (let at = text.indexOf('$'); at >= 0; at = text.indexOf('$', at + 1)) {
    if (text[at - 1] !== '\\') count += 1;
  }
  return count % 2 === 0;
}

function endsSentence(line: string, at: number): boolean {
  const char = line[at]!;
  if (char === '。' || char === '！' || char === '？' || char === '；') return true;
  const next = line[at + 1];
  if (char === '.' || char === '!' || char === '?') return next === undefined || /\s/.test(next);
  return char === ';' && /^;\s+\p{L}{3}/u.test(line.slice(at, at + 8));
}

/**
 * "6, not 5" and "$12$ (not $13$, ...)" state 6 and 12: a rejection after a value ends the statement. One that opens
 * the statement before a value ("not $5$", "不是5") states no value at all. A rejection among words ("no solution",
 * "there are no solutions") is part of them.
 */
function cutAtRejection(statement: string): string | Hedge {
  // A space first, so a rejection that opens the statement has the separator its lookbehind needs.
  const spaced = ` ${statement}`;
  const match = rejectionStart.exec(spaced);
  if (match === null) return statement;
  const before = spaced.slice(0, match.index).replace(/[\s,;(，、:]+$/, '');
  if (before === '')
    return /^\s*[-+\d$\\(]/.test(spaced.slice(match.index + match[0].length)) ? hedge : statement;
  return /[\p{N}$})\]%]$/u.test(before) ? before : statement;
}

/** A reason after the answer ends it: "The answer is 42 because ...", "42, since ...", "5，因为 ...". */
export function cutAtReason(line: string): string {
  // The word first, then the separator before it: a leading [\s,;]+ would rescan long runs of spaces (quadratic).
  const at = line.search(reasonStart);
  return at < 0 ? line : line.slice(0, at).replace(/[\s,;，、]+$/, '');
}

/** Minerva's closing formula ends the answer: "The final answer is 5. I hope it is correct." */
function cutAtHope(line: string): string {
  // A plain search (no leading \s*, which would rescan long runs of spaces from every start: quadratic).
  const at = line.search(/I hope it is correct/i);
  return at < 0 ? line : line.slice(0, at);
}
