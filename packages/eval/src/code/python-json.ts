/**
 * JSON values compared as Python compares what `json.loads` makes of them (LiveCodeBench's call-based tests:
 * `prediction == json.loads(expected)`). Numbers keep their source text, so integers compare exactly however
 * large (Python's int), floats as doubles, and an integer equals a float of the same value (1 == 1.0); true and
 * false equal 1 and 0 (Python's bool is an int); NaN equals nothing; objects compare as dicts (key order free).
 */
export type PyJson =
  | { readonly kind: 'int'; readonly value: bigint }
  | { readonly kind: 'float'; readonly value: number }
  | { readonly kind: 'bool'; readonly value: boolean }
  | { readonly kind: 'str'; readonly value: string }
  | { readonly kind: 'none' }
  | { readonly kind: 'list'; readonly items: readonly PyJson[] }
  | { readonly kind: 'dict'; readonly entries: ReadonlyMap<string, PyJson> };

/** Raised for text that json.loads would reject; the message names the offset. */
export class PyJsonError extends Error {
  override readonly name = 'PyJsonError';
}

/** Parses JSON as Python's json.loads does, NaN / Infinity / -Infinity included. */
export function parsePyJson(text: string): PyJson {
  const parser = new Parser(text);
  const value = parser.value();
  parser.skipSpace();
  if (!parser.done()) throw new PyJsonError(`unexpected text at offset ${parser.offset}`);
  return value;
}

export function pyEqual(a: PyJson, b: PyJson): boolean {
  const numberA = asNumber(a);
  const numberB = asNumber(b);
  if (numberA !== null || numberB !== null) {
    return numberA !== null && numberB !== null && numbersEqual(numberA, numberB);
  }
  if (a.kind === 'str' && b.kind === 'str') return a.value === b.value;
  if (a.kind === 'none' && b.kind === 'none') return true;
  if (a.kind === 'list' && b.kind === 'list') {
    return (
      a.items.length === b.items.length && a.items.every((item, index) => pyEqual(item, b.items[index]!))
    );
  }
  if (a.kind === 'dict' && b.kind === 'dict') {
    if (a.entries.size !== b.entries.size) return false;
    for (const [key, value] of a.entries) {
      const other = b.entries.get(key);
      if (other === undefined || !pyEqual(value, other)) return false;
    }
    return true;
  }
  return false;
}

type PyNumber = { readonly int: bigint } | { readonly float: number };

function asNumber(value: PyJson): PyNumber | null {
  if (value.kind === 'int') return { int: value.value };
  if (value.kind === 'bool') return { int: value.value ? 1n : 0n };
  if (value.kind === 'float') return { float: value.value };
  return null;
}

function numbersEqual(a: PyNumber, b: PyNumber): boolean {
  if ('int' in a && 'int' in b) return a.int === b.int;
  if ('float' in a && 'float' in b) return a.float === b.float;
  const int = 'int' in a ? a.int : (b as { int: bigint }).int;
  const float = 'float' in a ? a.float : (b as { float: number }).float;
  // Python compares an int with a float exactly, never by rounding the int to a double.
  return Number.isInteger(float) && BigInt(float) === int;
}

class Parser {
  offset = 0;
  constructor(private readonly text: string) {}

  done(): boolean {
    return this.offset >= this.text.length;
  }

  skipSpace(): void {
    while (/[ \t\n\r]/.test(this.text[this.offset] ?? '')) this.offset++;
  }

  value(): PyJson {
    this.skipSpace();
    const char = this.text[this.offset];
    if (char === '{') return this.object();
    if (char === '[') return this.array();
    if (char === '"') return { kind: 'str', value: this.string() };
    for (const [word, value] of KEYWORDS) {
      if (this.text.startsWith(word, this.offset)) {
        this.offset += word.length;
        return value;
      }
    }
    return this.number();
  }

  private object(): PyJson {
    this.offset++;
    const entries = new Map<string, PyJson>();
    this.skipSpace();
    if (this.text[this.offset] === '}') {
      this.offset++;
      return { kind: 'dict', entries };
    }
    for (;;) {
      this.skipSpace();
      if (this.text[this.offset] !== '"') throw this.error('a string key');
      const key = this.string();
      this.skipSpace();
      this.expect(':');
      entries.set(key, this.value());
      this.skipSpace();
      if (this.text[this.offset] === '}') {
        this.offset++;
        return { kind: 'dict', entries };
      }
      this.expect(',');
    }
  }

  private array(): PyJson {
    this.offset++;
    const items: PyJson[] = [];
    this.skipSpace();
    if (this.text[this.offset] === ']') {
      this.offset++;
      return { kind: 'list', items };
    }
    for (;;) {
      items.push(this.value());
      this.skipSpace();
      if (this.text[this.offset] === ']') {
        this.offset++;
        return { kind: 'list', items };
      }
      this.expect(',');
    }
  }

  private string(): string {
    const match = this.sticky(STRING);
    if (match === null) throw this.error('a string');
    this.offset += match[0].length;
    return JSON.parse(match[0]) as string;
  }

  private number(): PyJson {
    const match = this.sticky(NUMBER);
    if (match === null) throw this.error('a value');
    this.offset += match[0].length;
    return match[1] === undefined && match[2] === undefined
      ? { kind: 'int', value: BigInt(match[0]) }
      : { kind: 'float', value: Number(match[0]) };
  }

  /** Matches at the offset without copying the rest of the text (a sticky regex). */
  private sticky(pattern: RegExp): RegExpExecArray | null {
    pattern.lastIndex = this.offset;
    return pattern.exec(this.text);
  }

  private expect(char: string): void {
    if (this.text[this.offset] !== char) throw this.error(`"${char}"`);
    this.offset++;
  }

  private error(wanted: string): PyJsonError {
    return new PyJsonError(`expected ${wanted} at offset ${this.offset}`);
  }
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: json.loads (strict) refuses raw control characters in strings.
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;
const NUMBER = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;

const KEYWORDS: readonly [string, PyJson][] = [
  ['true', { kind: 'bool', value: true }],
  ['false', { kind: 'bool', value: false }],
  ['null', { kind: 'none' }],
  ['NaN', { kind: 'float', value: Number.NaN }],
  ['Infinity', { kind: 'float', value: Number.POSITIVE_INFINITY }],
  ['-Infinity', { kind: 'float', value: Number.NEGATIVE_INFINITY }],
];
