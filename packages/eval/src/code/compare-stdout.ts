/**
 * Standard-output comparison by LiveCodeBench's rules (lcb_runner/evaluation/testing_util.py, grade_stdio): both
 * texts are stripped, split on "\n" and each line stripped; the line counts must agree; a line matches when it is
 * the same text, or when both lines split on whitespace into the same number of decimals that are equal as
 * Python's `Decimal` compares them (exact: "1.50" equals "1.5" and "1e2" equals "100", but "0.1" is not "0.10001";
 * NaN equals nothing). Whitespace is Python's `str.isspace` set, not JavaScript's.
 */
export interface StdoutComparison {
  readonly equal: boolean;
  /** Why not, for a failed test's report: the line (0-based) and what differed. */
  readonly reason?: string;
}

export function compareStdout(actual: string, expected: string): StdoutComparison {
  const actualLines = strippedLines(actual);
  const expectedLines = strippedLines(expected);
  if (actualLines.length !== expectedLines.length) {
    return {
      equal: false,
      reason: `${actualLines.length} output lines, expected ${expectedLines.length}`,
    };
  }
  for (let index = 0; index < actualLines.length; index++) {
    const got = actualLines[index]!;
    const want = expectedLines[index]!;
    if (got === want || decimalLinesEqual(got, want)) continue;
    return { equal: false, reason: `line ${index}: ${clip(got)} != ${clip(want)}` };
  }
  return { equal: true };
}

// Python's str.isspace(): the Unicode White_Space characters plus the ASCII separators \x1c-\x1f.
const PY_SPACE =
  '\\t\\n\\v\\f\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const edges = new RegExp(`^[${PY_SPACE}]+|[${PY_SPACE}]+$`, 'g');
const runs = new RegExp(`[${PY_SPACE}]+`);

function pyStrip(text: string): string {
  return text.replace(edges, '');
}

function strippedLines(text: string): string[] {
  return pyStrip(text)
    .split('\n')
    .map((line) => pyStrip(line));
}

function decimalLinesEqual(a: string, b: string): boolean {
  const left = a === '' ? [] : a.split(runs).map(parseDecimal);
  const right = b === '' ? [] : b.split(runs).map(parseDecimal);
  if (left.includes(null) || right.includes(null) || left.length !== right.length) return false;
  return left.every((value, index) => decimalEqual(value!, right[index]!));
}

/** A decimal as Python's Decimal reads it: a sign, digits and an exponent, or an infinity, or NaN. */
type Decimal =
  | {
      readonly kind: 'finite';
      readonly negative: boolean;
      readonly digits: string;
      readonly exponent: bigint;
    }
  | { readonly kind: 'infinite'; readonly negative: boolean }
  | { readonly kind: 'nan' };

const finite = /^([+-]?)((?:\d(?:_?\d)*)?)(?:\.((?:\d(?:_?\d)*)?))?(?:[eE]([+-]?\d(?:_?\d)*))?$/;
const special = /^([+-]?)(inf|infinity|nan|snan)$/i;

function parseDecimal(token: string): Decimal | null {
  const named = special.exec(token);
  if (named !== null) {
    const word = named[2]!.toLowerCase();
    return word.endsWith('nan') ? { kind: 'nan' } : { kind: 'infinite', negative: named[1] === '-' };
  }
  const match = finite.exec(token);
  if (match === null) return null;
  const whole = (match[2] ?? '').replaceAll('_', '');
  const fraction = (match[3] ?? '').replaceAll('_', '');
  if (whole === '' && fraction === '') return null;
  const exponent = BigInt((match[4] ?? '0').replaceAll('_', '')) - BigInt(fraction.length);
  // Trailing zeros move into the exponent and leading zeros go, so equal values have one form.
  let digits = `${whole}${fraction}`.replace(/^0+/, '');
  let shift = 0n;
  while (digits.endsWith('0')) {
    digits = digits.slice(0, -1);
    shift += 1n;
  }
  return digits === ''
    ? { kind: 'finite', negative: false, digits: '', exponent: 0n }
    : { kind: 'finite', negative: match[1] === '-', digits, exponent: exponent + shift };
}

function decimalEqual(a: Decimal, b: Decimal): boolean {
  if (a.kind === 'nan' || b.kind === 'nan') return false;
  if (a.kind === 'infinite' || b.kind === 'infinite') {
    return a.kind === b.kind && a.negative === b.negative;
  }
  return a.negative === b.negative && a.digits === b.digits && a.exponent === b.exponent;
}

function clip(text: string, length = 80): string {
  return text.length <= length ? JSON.stringify(text) : `${JSON.stringify(text.slice(0, length))}...`;
}
