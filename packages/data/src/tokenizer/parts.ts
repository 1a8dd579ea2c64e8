import type { TextPart } from './types';

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A pattern matching any of `tokens`, longest first so a token that is a prefix of another never wins. */
export function tokenPattern(tokens: Iterable<string>): RegExp | null {
  const alternatives = [...tokens]
    .filter((token) => token !== '')
    .sort((a, b) => b.length - a.length)
    .map(escapeRegExp);
  return alternatives.length === 0 ? null : new RegExp(alternatives.join('|'), 'g');
}

/**
 * `Tokenizer.encodeParts` over a tokenizer's own pieces: trusted parts are cut at every token `pattern` matches
 * (mapped by `idOf`), and the text between two tokens, across part boundaries, is one run for `encodeRun` (which
 * must never produce an added token): how a Hugging Face tokenizer splits at added tokens before its pre-tokenizer.
 */
export function encodePartsWith(
  parts: readonly TextPart[],
  pattern: RegExp | null,
  idOf: (token: string) => number,
  encodeRun: (text: string) => Int32Array,
): Int32Array {
  const ids: number[] = [];
  let run = '';
  const flush = () => {
    if (run !== '') for (const id of encodeRun(run)) ids.push(id);
    run = '';
  };
  for (const part of parts) {
    if (part.untrusted || pattern === null) {
      run += part.text;
      continue;
    }
    let start = 0;
    for (const match of part.text.matchAll(pattern)) {
      run += part.text.slice(start, match.index);
      flush();
      ids.push(idOf(match[0]));
      start = match.index + match[0].length;
    }
    run += part.text.slice(start);
  }
  flush();
  return Int32Array.from(ids);
}
