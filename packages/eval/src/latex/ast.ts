import type { Rational } from '../math/rational';

/** Scalar and structural answers after parsing. Each kind maps to one comparison rule (docs/explanation/grading.md). */
export type Expr =
  /** `decimal` marks literals written with a point or exponent: approximations, compared with tolerance. */
  | { readonly kind: 'number'; readonly value: Rational; readonly decimal?: boolean }
  | { readonly kind: 'symbol'; readonly name: string }
  | { readonly kind: 'constant'; readonly name: 'pi' | 'e' | 'i' | 'infinity' }
  /**
   * `fromFrac` marks a quotient written \frac{a}{b}, which may be the fraction part of a mixed number; `applied`
   * marks a symbol juxtaposed with a parenthesised group, f(x), which on the left of "=" names a function.
   */
  | {
      readonly kind: 'binary';
      readonly op: BinaryOp;
      readonly left: Expr;
      readonly right: Expr;
      readonly fromFrac?: boolean;
      readonly applied?: boolean;
    }
  | { readonly kind: 'negate'; readonly operand: Expr }
  /** `label` is the written operator with its limits of an 'operator' call (\sum_{k=1}^{n}), whose arg is the body. */
  | {
      readonly kind: 'call';
      readonly name: FunctionName;
      readonly args: readonly Expr[];
      readonly label?: string;
    }
  /** Bracketed comma lists: ordered tuples, or intervals when the brackets say so. */
  | {
      readonly kind: 'tuple';
      readonly open: '(' | '[';
      readonly close: ')' | ']';
      readonly items: readonly Expr[];
    }
  | { readonly kind: 'set'; readonly items: readonly Expr[] }
  /** A bare comma list "1, 2, 3", read as several answers. */
  | { readonly kind: 'list'; readonly items: readonly Expr[] }
  | { readonly kind: 'union'; readonly items: readonly Expr[] }
  | { readonly kind: 'matrix'; readonly rows: readonly (readonly Expr[])[] }
  /** A chain a < b <= c, or one equation a = b. */
  | { readonly kind: 'relation'; readonly ops: readonly RelationOp[]; readonly items: readonly Expr[] }
  | { readonly kind: 'text'; readonly text: string };

export type BinaryOp = '+' | '-' | '*' | '/' | '^' | '±';
export type RelationOp = '=' | '<' | '<=' | '>' | '>=' | '!=';

export type FunctionName =
  | 'sqrt'
  | 'root'
  | 'abs'
  | 'floor'
  | 'ceil'
  | 'factorial'
  | 'binom'
  | 'exp'
  | 'ln'
  | 'log'
  | 'sin'
  | 'cos'
  | 'tan'
  | 'sec'
  | 'csc'
  | 'cot'
  | 'arcsin'
  | 'arccos'
  | 'arctan'
  | 'sinh'
  | 'cosh'
  | 'tanh'
  /** A sum, product or integral over a bound variable: opaque, never evaluated (parseBigOperator). */
  | 'operator';
