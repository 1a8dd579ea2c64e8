import type { Expr, FunctionName } from './ast';
import type { Token } from './tokenize';

// The LaTeX vocabulary the parser knows: command tables and small tree helpers.

export const functionCommands: Record<string, FunctionName> = {
  sin: 'sin',
  cos: 'cos',
  tan: 'tan',
  sec: 'sec',
  csc: 'csc',
  cot: 'cot',
  arcsin: 'arcsin',
  arccos: 'arccos',
  arctan: 'arctan',
  sinh: 'sinh',
  cosh: 'cosh',
  tanh: 'tanh',
  ln: 'ln',
  log: 'log',
  exp: 'exp',
  lg: 'log',
};

export const greekLetters = new Set([
  'alpha',
  'beta',
  'gamma',
  'delta',
  'epsilon',
  'varepsilon',
  'zeta',
  'eta',
  'theta',
  'vartheta',
  'iota',
  'kappa',
  'lambda',
  'mu',
  'nu',
  'xi',
  'rho',
  'sigma',
  'tau',
  'upsilon',
  'phi',
  'varphi',
  'chi',
  'psi',
  'omega',
  'Gamma',
  'Delta',
  'Theta',
  'Lambda',
  'Xi',
  'Sigma',
  'Phi',
  'Psi',
  'Omega',
  'ell',
]);

/** Operators over a bound variable (sums, products, integrals): read as opaque terms, never evaluated. */
export const bigOperators = new Set(['sum', 'prod', 'coprod', 'int', 'iint', 'iiint', 'oint']);

/** Commands with a grammatical role elsewhere; meeting one as an atom means the answer is malformed. */
export const structuralCommands = new Set(['rfloor', 'rceil', 'dots', 'ldots', 'cdots', 'right', 'end']);

/** Commands that close or separate rather than start a factor. */
export const nonStartingCommands = new Set(['dots', 'ldots', 'cdots', 'rfloor', 'rceil']);

export const relationOps = new Set(['=', '<', '<=', '>', '>=', '!=']);
export const matrixEnvironments = new Set([
  'pmatrix',
  'bmatrix',
  'matrix',
  'Bmatrix',
  'vmatrix',
  'smallmatrix',
  'array',
  // A system of equations: its rows compare in order, like a one-column matrix.
  'cases',
]);

/** 1\frac{4}{5} is the mixed number 9/5 (MATH convention), not 1 × 4/5: a whole number before a fraction of
 * whole numbers. */
export function isMixedNumber(whole: Expr, fraction: Expr): boolean {
  const integer = (expr: Expr): boolean => expr.kind === 'number' && !expr.decimal && expr.value.den === 1n;
  const wholeDigits = whole.kind === 'negate' ? whole.operand : whole;
  return (
    integer(wholeDigits) &&
    fraction.kind === 'binary' &&
    fraction.op === '/' &&
    fraction.fromFrac === true &&
    integer(fraction.left) &&
    integer(fraction.right)
  );
}

export function mixedNumber(whole: Expr, fraction: Expr): Expr {
  if (whole.kind === 'negate')
    return { kind: 'negate', operand: { kind: 'binary', op: '+', left: whole.operand, right: fraction } };
  return { kind: 'binary', op: '+', left: whole, right: fraction };
}

export const inverseFunctions: Partial<Record<FunctionName, FunctionName>> = {
  sin: 'arcsin',
  cos: 'arccos',
  tan: 'arctan',
};

export function isMinusOne(expr: Expr): boolean {
  return (
    expr.kind === 'negate' &&
    expr.operand.kind === 'number' &&
    expr.operand.value.num === 1n &&
    expr.operand.value.den === 1n
  );
}

export function tokenText(token: Token): string {
  switch (token.type) {
    case 'number':
    case 'letter':
    case 'text':
    case 'op':
      return token.text;
    case 'command':
      return token.name;
    default:
      return '';
  }
}

export function describe(token: Token | undefined): string {
  return token === undefined ? 'end of answer' : `"${tokenText(token) || token.type}"`;
}
