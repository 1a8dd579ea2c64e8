import { isProse } from '../compare/prose';
import { type Limits, TooLargeError } from '../limits';
import { parseDecimal } from '../math/rational';
import type { Expr, FunctionName, RelationOp } from './ast';
import { type Token, tokenize } from './tokenize';
import {
  bigOperators,
  describe,
  functionCommands,
  greekLetters,
  inverseFunctions,
  isMinusOne,
  isMixedNumber,
  matrixEnvironments,
  mixedNumber,
  nonStartingCommands,
  relationOps,
  structuralCommands,
  tokenText,
} from './vocabulary';

/** Raised when an answer is not readable mathematics; the grader then falls back to comparing text. */
export class ParseError extends Error {
  override readonly name = 'ParseError';
}

/**
 * Parses one LaTeX answer into an expression tree (recursive descent; precedence: relation < sum < product). An
 * answer in prose is text: its words are not products of variables.
 */
export function parseLatex(source: string, limits: Pick<Limits, 'maxDepth'>): Expr {
  if (isProse(source)) return { kind: 'text', text: source };
  return new Parser(tokenize(source), limits.maxDepth).parseAnswer();
}

class Parser {
  private at = 0;
  private depth = 0;
  private absDepth = 0;

  constructor(
    private readonly tokens: Token[],
    private readonly maxDepth: number,
  ) {}

  parseAnswer(): Expr {
    const expr = this.parseList(new Set());
    if (this.at < this.tokens.length) throw new ParseError(`unexpected ${describe(this.peek())}`);
    return expr;
  }

  private peek(offset = 0): Token | undefined {
    return this.tokens[this.at + offset];
  }

  private isOp(text: string, offset = 0): boolean {
    const token = this.peek(offset);
    return token?.type === 'op' && token.text === text;
  }

  private expectOp(text: string): void {
    if (!this.isOp(text)) throw new ParseError(`expected "${text}" but found ${describe(this.peek())}`);
    this.at += 1;
  }

  private enter(): void {
    this.depth += 1;
    if (this.depth > this.maxDepth) throw new TooLargeError(`nesting deeper than ${this.maxDepth}`);
  }

  /** Comma-separated relations up to a closing token in `stops`; one item is returned as itself. */
  private parseList(stops: Set<string>): Expr {
    const items = [this.parseUnion(stops)];
    while (this.isOp(',') || this.isOp(';')) {
      this.at += 1;
      if (this.atStop(stops)) break;
      items.push(this.parseUnion(stops));
    }
    return items.length === 1 ? items[0]! : { kind: 'list', items };
  }

  private atStop(stops: Set<string>): boolean {
    const token = this.peek();
    return token === undefined || (token.type === 'op' && stops.has(token.text)) || token.type === 'end';
  }

  private parseUnion(stops: Set<string>): Expr {
    const items = [this.parseRelation(stops)];
    while (this.isOp('cup')) {
      this.at += 1;
      items.push(this.parseRelation(stops));
    }
    return items.length === 1 ? items[0]! : { kind: 'union', items };
  }

  private parseRelation(stops: Set<string>): Expr {
    const items = [this.parseSum()];
    const ops: RelationOp[] = [];
    for (let token = this.peek(); token?.type === 'op' && relationOps.has(token.text); token = this.peek()) {
      this.at += 1;
      ops.push(token.text as RelationOp);
      items.push(this.atStop(stops) ? { kind: 'text', text: '' } : this.parseSum());
    }
    return ops.length === 0 ? items[0]! : { kind: 'relation', ops, items };
  }

  private parseSum(): Expr {
    let left = this.isOp('±') ? this.parsePlusMinusPrefix() : this.parseProduct();
    for (let token = this.peek(); token?.type === 'op'; token = this.peek()) {
      if (token.text !== '+' && token.text !== '-' && token.text !== '±') break;
      this.at += 1;
      left = { kind: 'binary', op: token.text, left, right: this.parseProduct() };
    }
    return left;
  }

  /** "\pm 3" alone means the two answers 3 and -3, written as 0 ± 3. */
  private parsePlusMinusPrefix(): Expr {
    this.at += 1;
    return {
      kind: 'binary',
      op: '±',
      left: { kind: 'number', value: { num: 0n, den: 1n } },
      right: this.parseProduct(),
    };
  }

  private parseProduct(): Expr {
    let left = this.parseUnary();
    for (;;) {
      if (this.isOp('*') || this.isOp('/') || this.isOp(':')) {
        // A ratio a:b is the quotient a/b (times of day are turned into text before parsing).
        const op = this.isOp('*') ? '*' : '/';
        this.at += 1;
        left = { kind: 'binary', op, left, right: this.parseUnary() };
      } else if (this.startsImplicitFactor()) {
        // "11.0 4/9" or "4 4/9 2": a number written after a number with nothing between them is no product (that
        // would read 44/9 or 32/9); a plain-text mixed number was read before parsing, so this is no answer.
        if (left.kind === 'number' && this.peek()?.type === 'number') {
          throw new ParseError('two numbers side by side with no operator between them');
        }
        const applied = left.kind === 'symbol' && this.isOp('(');
        const right = this.parsePower();
        left = isMixedNumber(left, right)
          ? mixedNumber(left, right)
          : { kind: 'binary', op: '*', left, right, ...(applied ? { applied } : {}) };
      } else {
        return left;
      }
    }
  }

  /** Juxtaposition multiplies: 2x, 3\sqrt{2}, (x+1)(x-1), \frac12 x. */
  private startsImplicitFactor(): boolean {
    const token = this.peek();
    if (token === undefined) return false;
    if (token.type === 'number' || token.type === 'letter' || token.type === 'begin') return true;
    if (token.type === 'command') return !nonStartingCommands.has(token.name);
    if (token.type === 'text') return false;
    if (token.type === 'op') {
      if (token.text === '|') return this.absDepth === 0;
      return token.text === '(' || token.text === '{' || token.text === '[';
    }
    return false;
  }

  private parseUnary(): Expr {
    if (this.isOp('-')) {
      this.at += 1;
      return { kind: 'negate', operand: this.parseUnary() };
    }
    if (this.isOp('+')) {
      this.at += 1;
      return this.parseUnary();
    }
    return this.parsePower();
  }

  private parsePower(): Expr {
    this.enter();
    let base = this.parsePostfix(this.parseAtom());
    if (
      this.isOp('^') &&
      (this.isOp("'", 1) || (this.isOp('{', 1) && this.isOp("'", 2) && this.isOp('}', 3)))
    ) {
      // y^{\prime} is y'.
      this.at += this.isOp("'", 1) ? 1 : 2;
      base = this.parsePostfix(base);
      if (this.isOp('}')) this.at += 1;
    }
    if (this.isOp('^')) {
      this.at += 1;
      const negative = this.isOp('-');
      if (negative) this.at += 1;
      const magnitude = this.parseArgument();
      const exponent: Expr = negative ? { kind: 'negate', operand: magnitude } : magnitude;
      base = this.parsePostfix({ kind: 'binary', op: '^', left: base, right: exponent });
    }
    this.depth -= 1;
    return base;
  }

  private parsePostfix(expr: Expr): Expr {
    let result = expr;
    while (this.isOp('!') || this.isOp("'")) {
      const isFactorial = this.isOp('!');
      this.at += 1;
      if (isFactorial) result = { kind: 'call', name: 'factorial', args: [result] };
      // A derivative y' is its own unknown, distinct from y.
      else if (result.kind === 'symbol') result = { kind: 'symbol', name: `${result.name}'` };
      else throw new ParseError('a prime applies to a symbol only');
    }
    return result;
  }

  /** A TeX macro argument: a {group}, or a single character (so \frac12 is 1/2 and x^23 is x^2 * 3). */
  private parseArgument(): Expr {
    const token = this.peek();
    if (token?.type === 'op' && token.text === '{') {
      this.at += 1;
      const inner = this.parseList(new Set(['}']));
      this.expectOp('}');
      return inner;
    }
    if (token?.type === 'number' && token.text.length > 1) {
      this.tokens.splice(
        this.at,
        1,
        { type: 'number', text: token.text[0]! },
        { type: 'number', text: token.text.slice(1) },
      );
    }
    return this.parseAtom();
  }

  private parseAtom(): Expr {
    const token = this.peek();
    if (token === undefined) throw new ParseError('unexpected end of answer');
    this.at += 1;
    switch (token.type) {
      case 'number': {
        const value = parseDecimal(token.text);
        if (value === null) throw new ParseError(`bad number "${token.text}"`);
        // 52_8: a numeral in another base, compared literally.
        if (this.isOp('_')) return this.withSubscript(token.text);
        return /[.e]/.test(token.text) ? { kind: 'number', value, decimal: true } : { kind: 'number', value };
      }
      case 'letter':
        return this.parseLetter(token.text);
      case 'text':
        return this.parseTextToken(token.text);
      case 'command':
        return this.parseCommand(token.name);
      case 'begin':
        return this.parseEnvironment(token.env);
      case 'end':
        throw new ParseError(`unexpected \\end{${token.env}}`);
      case 'op': {
        const bracketed = this.parseBracketed(token.text);
        // \dot{x}_0 reaches here as {x}_0 once the accent is dropped.
        return bracketed.kind === 'symbol' && this.isOp('_') ? this.withSubscript(bracketed.name) : bracketed;
      }
    }
  }

  private parseLetter(letter: string): Expr {
    if (letter === 'e' && !this.isOp('_')) return { kind: 'constant', name: 'e' };
    if (letter === 'i' && !this.isOp('_')) return { kind: 'constant', name: 'i' };
    return this.withSubscript(letter);
  }

  /** x_1, a_{n+1}: the subscript is part of the name, compared literally. */
  private withSubscript(name: string): Expr {
    if (!this.isOp('_')) return { kind: 'symbol', name };
    this.at += 1;
    const start = this.at;
    this.parseArgument();
    const subscript = this.tokens
      .slice(start, this.at)
      .map(tokenText)
      .filter((text) => text !== '{' && text !== '}')
      .join('');
    return { kind: 'symbol', name: `${name}_${subscript}` };
  }

  /** \text{...}: words, or mathematics that happened to be wrapped in \text (\mathrm{e}, \text{5}). */
  private parseTextToken(text: string): Expr {
    const trimmed = text.trim();
    if (functionCommands[trimmed] !== undefined) return this.parseFunction(functionCommands[trimmed]!);
    if (/^[\d.]+$/.test(trimmed) || trimmed === 'e' || trimmed === 'i') {
      return new Parser(tokenize(trimmed), this.maxDepth - this.depth).parseAnswer();
    }
    return { kind: 'text', text: trimmed };
  }

  private parseCommand(name: string): Expr {
    if (name === 'frac' || name === 'dfrac' || name === 'tfrac' || name === 'cfrac') {
      const numerator = this.parseArgument();
      return { kind: 'binary', op: '/', left: numerator, right: this.parseArgument(), fromFrac: true };
    }
    if (name === 'sqrt') {
      if (this.isOp('[')) {
        this.at += 1;
        const index = this.parseSum();
        this.expectOp(']');
        return { kind: 'call', name: 'root', args: [this.parseArgument(), index] };
      }
      return { kind: 'call', name: 'sqrt', args: [this.parseArgument()] };
    }
    if (name === 'binom' || name === 'dbinom' || name === 'tbinom') {
      const n = this.parseArgument();
      return { kind: 'call', name: 'binom', args: [n, this.parseArgument()] };
    }
    if (name === 'pi') return { kind: 'constant', name: 'pi' };
    if (name === 'infty' || name === 'infinity') return { kind: 'constant', name: 'infinity' };
    if (name === 'emptyset' || name === 'varnothing') return { kind: 'set', items: [] };
    if (name === 'lfloor' || name === 'lceil')
      return this.parseDelimited(name === 'lfloor' ? 'floor' : 'ceil');
    if (functionCommands[name] !== undefined) return this.parseFunction(functionCommands[name]!);
    if (bigOperators.has(name)) return this.parseBigOperator(name);
    if (structuralCommands.has(name)) throw new ParseError(`unexpected \\${name}`);
    // Greek letters and any other named constant (\hbar, \odot) are symbols.
    return this.withSubscript(greekLetters.has(name) ? name : `\\${name}`);
  }

  /**
   * \sum_{k=1}^{n} k^2, \prod, \int: an operator over a bound variable, which the grader does not evaluate. The
   * operator with its limits (as written) applied to its body (the rest of the product: \sum_k k \cdot k + 1 is
   * (\sum_k k^2) + 1) is an opaque function of the body: equal bodies give equal terms (F_k F_{n-k-1} is
   * F_{n-k-1} F_k), and nothing moves through the operator. Read as a symbol times its body, \prod_{k=1}^n 2k
   * would equal 2\prod_{k=1}^n k, and \sum_{k=1}^{2n} k^2 would equal (\sum_{k=1}^{n} k)^2.
   */
  private parseBigOperator(operator: string): Expr {
    const written = (start: number): string =>
      this.tokens
        .slice(start, this.at)
        .map((token) => (token.type === 'command' ? `\\${token.name}` : tokenText(token)))
        .join(' ');
    let name = `\\${operator}`;
    for (let limit = 0; limit < 2 && (this.isOp('_') || this.isOp('^')); limit++) {
      const mark = tokenText(this.peek()!);
      this.at += 1;
      const start = this.at;
      this.parseArgument();
      // _{k=1} and _k name the same limit: the argument is written in braces either way.
      const argument = written(start).replace(/^\{ (.*) \}$/, '$1');
      name += `${mark}{${argument}}`;
    }
    if (!this.startsImplicitFactor()) return { kind: 'symbol', name };
    return { kind: 'call', name: 'operator', label: name, args: [this.parseProduct()] };
  }

  private parseDelimited(name: 'floor' | 'ceil'): Expr {
    const inner = this.parseSum();
    const closing = this.peek();
    if (closing?.type !== 'command' || closing.name !== (name === 'floor' ? 'rfloor' : 'rceil')) {
      throw new ParseError(`unclosed \\l${name}`);
    }
    this.at += 1;
    return { kind: 'call', name, args: [inner] };
  }

  /** \sin^2 x, \log_2 8, \ln(x+1), \sin 2x (the argument runs over the following product). */
  private parseFunction(name: FunctionName): Expr {
    let base: Expr | undefined;
    if (name === 'log' && this.isOp('_')) {
      this.at += 1;
      base = this.parseArgument();
    }
    let power: Expr | undefined;
    if (this.isOp('^')) {
      this.at += 1;
      power = this.parseArgument();
    }
    // \sin(x)^2 squares the sine: a parenthesised argument ends at its bracket, the caller reads the power.
    const argument = this.isOp('(') ? this.parseAtom() : this.parseFunctionArgument();
    // \cos^{-1} is arccos, not a reciprocal.
    const inverse = power !== undefined && isMinusOne(power) ? inverseFunctions[name] : undefined;
    if (inverse !== undefined) return { kind: 'call', name: inverse, args: [argument] };
    const call: Expr = { kind: 'call', name, args: base === undefined ? [argument] : [argument, base] };
    return power === undefined ? call : { kind: 'binary', op: '^', left: call, right: power };
  }

  /** "\sin 2x" is sin(2x) but "\sin x \cos x" is sin(x)·cos(x): the argument stops at the next function. */
  private parseFunctionArgument(): Expr {
    let argument = this.parsePower();
    while (this.startsImplicitFactor() && !this.startsFunction()) {
      argument = { kind: 'binary', op: '*', left: argument, right: this.parsePower() };
    }
    return argument;
  }

  private startsFunction(): boolean {
    const token = this.peek();
    if (token?.type === 'command') return functionCommands[token.name] !== undefined;
    return token?.type === 'text' && functionCommands[token.text.trim()] !== undefined;
  }

  private parseEnvironment(env: string): Expr {
    if (!matrixEnvironments.has(env)) {
      // aligned, cases, ... wrap ordinary mathematics: read the body.
      const body = this.parseList(new Set(['\\\\', '&']));
      this.expectEnd(env);
      return body;
    }
    const rows: Expr[][] = [];
    let row: Expr[] = [];
    for (;;) {
      if (this.peek()?.type === 'end') break;
      row.push(this.parseRelation(new Set(['&', '\\\\'])));
      if (this.isOp('&')) {
        this.at += 1;
      } else if (this.isOp('\\\\')) {
        this.at += 1;
        rows.push(row);
        row = [];
      } else if (this.peek()?.type !== 'end') {
        throw new ParseError(`unexpected ${describe(this.peek())} in ${env}`);
      }
    }
    if (row.length > 0) rows.push(row);
    this.expectEnd(env);
    return { kind: 'matrix', rows };
  }

  private expectEnd(env: string): void {
    const token = this.peek();
    if (token?.type !== 'end' || token.env !== env) throw new ParseError(`missing \\end{${env}}`);
    this.at += 1;
  }

  /** ( ... ), [ ... ], { ... }, \{ ... \}, | ... |: groups, tuples, intervals, sets and absolute values. */
  private parseBracketed(open: string): Expr {
    this.enter();
    let result: Expr;
    if (open === '(' || open === '[') {
      const inner = this.parseList(new Set([')', ']']));
      const close = this.peek();
      if (close?.type !== 'op' || (close.text !== ')' && close.text !== ']'))
        throw new ParseError(`unclosed "${open}"`);
      this.at += 1;
      // A matrix written inside brackets, \left[\begin{array}..\end{array}\right] or (\begin{pmatrix}..), is the matrix.
      result =
        inner.kind === 'matrix'
          ? inner
          : inner.kind === 'list'
            ? { kind: 'tuple', open, close: close.text, items: inner.items }
            : open === '(' && close.text === ')'
              ? inner
              : { kind: 'tuple', open, close: close.text, items: [inner] };
    } else if (open === '{') {
      result = this.parseList(new Set(['}']));
      this.expectOp('}');
    } else if (open === '\\{') {
      const inner = this.isOp('\\}')
        ? ({ kind: 'list', items: [] } as const)
        : this.parseList(new Set(['\\}']));
      this.expectOp('\\}');
      result = { kind: 'set', items: inner.kind === 'list' ? inner.items : [inner] };
    } else if (open === '|') {
      this.absDepth += 1;
      const inner = this.parseSum();
      this.absDepth -= 1;
      this.expectOp('|');
      result = { kind: 'call', name: 'abs', args: [inner] };
    } else {
      throw new ParseError(`unexpected "${open}"`);
    }
    this.depth -= 1;
    return result;
  }
}
