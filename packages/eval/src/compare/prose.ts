/**
 * Answers written as prose ("odd $n$", "f(x) = ax + b, where b is an arbitrary integer", "$g(x) = ...$ for some
 * $a > 0$"). Read as mathematics their words would be products of one-letter variables (o·d·d·n), so "odd n" would
 * equal "dod n"; they are compared as text instead.
 */

/** Short English words that never stand for a product of variables in an answer. */
const shortWords = new Set('odd all any for the are not has its yes way one'.split(' '));
/** Function names a model may write without a backslash; runs of four or more letters that are not prose. */
const functionWords = new Set('sqrt arcsin arccos arctan sinh cosh tanh infinity frac'.split(' '));

/** Whether an answer (normalised) contains an English word outside LaTeX commands and environment names. */
export function isProse(text: string): boolean {
  const bare = text
    .replace(/\\(?:begin|end)\s*\{[a-zA-Z*]*\}/g, ' ')
    .replace(/\\operatorname\s*\{[^{}]*\}/g, ' ')
    .replace(/_\s*(?:\{[^{}]*\}|[a-zA-Z0-9])/g, ' ')
    .replace(/\\[a-zA-Z]+/g, ' ');
  for (const [word] of bare.matchAll(/[a-zA-Z]+/g)) {
    // Capitals name points and segments (S_{MBCN}, AB), never prose.
    if (!/^[A-Z]?[a-z]+$/.test(word)) continue;
    const lower = word.toLowerCase();
    if (word.length >= 4 && !functionWords.has(lower)) return true;
    if (shortWords.has(lower)) return true;
  }
  return false;
}

/**
 * What two prose answers must share to be equal: the text without math delimiters, text wrappers, spacing and
 * case. Mathematics inside prose is compared as written, never evaluated: a miss is better than "a > 0" read as
 * "a < 0".
 */
export function proseKey(text: string): string {
  return text
    .replace(/\\(?:text|textrm|textbf|mathrm|mbox)\s*\{([^{}]*)\}/g, '$1')
    .replace(/\$|\\[,;:! ]/g, '')
    .replace(/\s+/g, '')
    .toLowerCase();
}
