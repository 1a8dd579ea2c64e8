import { TooLargeError } from '../limits';

/** LaTeX answer tokens. Formatting commands vanish here so the parser only sees mathematics. */
export type Token =
  | { readonly type: 'number'; readonly text: string }
  | { readonly type: 'letter'; readonly text: string }
  | { readonly type: 'command'; readonly name: string }
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'begin' | 'end'; readonly env: string }
  | { readonly type: 'op'; readonly text: string };

/** Commands that only change spacing, size or font: dropped, their argument (if any) read as a plain group. */
const ignoredCommands = new Set([
  'left',
  'right',
  'big',
  'Big',
  'bigg',
  'Bigg',
  'bigl',
  'bigr',
  'Bigl',
  'Bigr',
  'biggl',
  'biggr',
  'quad',
  'qquad',
  'displaystyle',
  'textstyle',
  'mathbf',
  'mathbb',
  'mathcal',
  'mathit',
  'boldsymbol',
  'bm',
  'overline',
  'vec',
  'hat',
  'bar',
  'tilde',
  'widehat',
  'overrightarrow',
  'dot',
  'ddot',
  'angle',
  'measuredangle',
  'limits',
  'nolimits',
  'hspace',
  'phantom',
  'displaylimits',
]);

const operatorCommands: Record<string, string> = {
  le: '<=',
  leq: '<=',
  leqslant: '<=',
  ge: '>=',
  geq: '>=',
  geqslant: '>=',
  lt: '<',
  gt: '>',
  ne: '!=',
  neq: '!=',
  cdot: '*',
  times: '*',
  ast: '*',
  div: '/',
  pm: '±',
  mp: '±',
  cup: 'cup',
  lvert: '|',
  rvert: '|',
  vert: '|',
  mid: '|',
  prime: "'",
  // x \in [a, b] reads as the assignment x = [a, b].
  in: '=',
  lbrace: '\\{',
  rbrace: '\\}',
  colon: ':',
  to: 'to',
  rightarrow: 'to',
  approx: '=',
};

const unicodeOperators: Record<string, string> = {
  '≤': '<=',
  '≥': '>=',
  '≠': '!=',
  '·': '*',
  '×': '*',
  '÷': '/',
  '±': '±',
  '∪': 'cup',
  '−': '-',
  '∞': 'infinity',
  π: 'pi',
  '√': 'sqrt',
};

/** Commands whose brace argument is words, kept verbatim as one token. */
const textCommands = new Set([
  'text',
  'textbf',
  'textit',
  'mbox',
  'mathrm',
  'operatorname',
  'textrm',
  'mathsf',
  'textnormal',
  'textsf',
  'texttt',
  'textup',
]);

export function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let at = 0;
  while (at < source.length) {
    const char = source[at]!;
    if (/\s|~/.test(char)) {
      at += 1;
    } else if (/[0-9.]/.test(char)) {
      const match = /^(\d*\.?\d*)(?:e[+-]?\d+(?![a-zA-Z]))?/.exec(source.slice(at, at + 400))!;
      const text = match[0] === '.' ? '' : match[0];
      if (text === '') {
        tokens.push({ type: 'op', text: '.' });
        at += 1;
      } else {
        if (text.length > 300) throw new TooLargeError('number literal longer than 300 characters');
        tokens.push({ type: 'number', text });
        at += text.length;
      }
    } else if (/[a-zA-Z]/.test(char)) {
      tokens.push({ type: 'letter', text: char });
      at += 1;
    } else if (char === '\\') {
      at = readCommand(source, at, tokens);
    } else if (unicodeOperators[char] !== undefined) {
      const mapped = unicodeOperators[char]!;
      tokens.push(/^[a-z]+$/.test(mapped) ? { type: 'command', name: mapped } : { type: 'op', text: mapped });
      at += 1;
    } else if ((char === '<' || char === '>' || char === '!') && source[at + 1] === '=') {
      tokens.push({ type: 'op', text: char === '!' ? '!=' : `${char}=` });
      at += 2;
    } else {
      tokens.push({ type: 'op', text: char === '\u2212' ? '-' : char });
      at += 1;
    }
  }
  return tokens;
}

function readCommand(source: string, start: number, tokens: Token[]): number {
  const name = /^\\([a-zA-Z]+|.)/.exec(source.slice(start, start + 40))?.[1] ?? '';
  let at = start + 1 + name.length;
  if (name === '' || /^[,;:! ]$/.test(name)) return at;
  if (name === '{' || name === '}') {
    tokens.push({ type: 'op', text: `\\${name}` });
  } else if (name === '\\') {
    tokens.push({ type: 'op', text: '\\\\' });
  } else if (name === '%' || name === '$') {
    tokens.push({ type: 'op', text: name });
  } else if (textCommands.has(name)) {
    const group = readGroup(source, at);
    tokens.push({ type: 'text', text: group.text });
    at = group.end;
  } else if (name === 'begin' || name === 'end') {
    const group = readGroup(source, at);
    tokens.push({ type: name, env: group.text.trim() });
    at = group.end;
    // array's column specification {cc} carries no mathematics.
    if (name === 'begin' && group.text.trim() === 'array' && source[at] === '{')
      at = readGroup(source, at).end;
  } else if (name === 'left' || name === 'right') {
    if (source[at] === '.') at += 1;
  } else if (operatorCommands[name] !== undefined) {
    tokens.push({ type: 'op', text: operatorCommands[name]! });
  } else if (!ignoredCommands.has(name)) {
    tokens.push({ type: 'command', name });
  }
  return at;
}

/** Reads a balanced {...} group starting at `start` (skipping spaces); a missing group reads as empty. */
function readGroup(source: string, start: number): { text: string; end: number } {
  let at = start;
  while (source[at] === ' ') at += 1;
  if (source[at] !== '{') return { text: '', end: start };
  let depth = 0;
  for (let index = at; index < source.length; index++) {
    const char = source[index];
    if (char === '\\') index += 1;
    else if (char === '{') depth += 1;
    else if (char === '}') {
      depth -= 1;
      if (depth === 0) return { text: source.slice(at + 1, index), end: index + 1 };
    }
  }
  return { text: source.slice(at + 1), end: source.length };
}
