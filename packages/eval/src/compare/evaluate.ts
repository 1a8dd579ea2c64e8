import type { Expr } from '../latex/ast';
import { type Deadline, TooLargeError } from '../limits';
import {
  type Complex,
  cabs,
  cadd,
  casin,
  catan,
  ccos,
  cdiv,
  cexp,
  clog,
  cmul,
  cneg,
  complex,
  cpow,
  csin,
  csqrt,
  csub,
  gamma,
} from '../math/complex';
import * as Q from '../math/rational';
import { hashSeed, seededRandom } from '../seeded-random';

/**
 * Exact value of an expression built from rationals with + - * /, integer powers, factorials, |.| and perfect
 * square roots, with symbols taken from `env`; null as soon as anything irrational or unassigned appears (the
 * caller then evaluates in floating point).
 */
export function evaluateExact(
  expr: Expr,
  deadline: Deadline,
  env: ReadonlyMap<string, Q.Rational> = noSymbols,
): Q.Rational | null {
  deadline.check();
  const recurse = (inner: Expr): Q.Rational | null => evaluateExact(inner, deadline, env);
  switch (expr.kind) {
    case 'number':
      return expr.value;
    case 'symbol':
      return env.get(expr.name) ?? null;
    case 'negate': {
      const value = recurse(expr.operand);
      return value && Q.neg(value);
    }
    case 'binary': {
      if (expr.op === '±') return null;
      const left = recurse(expr.left);
      const right = left && recurse(expr.right);
      if (!left || !right) return null;
      if (expr.op === '+') return Q.add(left, right);
      if (expr.op === '-') return Q.sub(left, right);
      if (expr.op === '*') return Q.mul(left, right);
      if (expr.op === '/') return Q.div(left, right);
      return Q.isInteger(right) ? Q.powInt(left, right.num) : null;
    }
    case 'call': {
      const argument = expr.args.length === 1 ? recurse(expr.args[0]!) : null;
      if (!argument) return null;
      if (expr.name === 'factorial') return Q.factorial(argument);
      if (expr.name === 'abs') return argument.num < 0n ? Q.neg(argument) : argument;
      if (expr.name === 'sqrt') return exactSquareRoot(argument);
      return null;
    }
    default:
      return null;
  }
}

const noSymbols: ReadonlyMap<string, Q.Rational> = new Map();

function exactSquareRoot(value: Q.Rational): Q.Rational | null {
  if (value.num < 0n) return null;
  const num = integerSquareRoot(value.num);
  const den = integerSquareRoot(value.den);
  return num !== null && den !== null ? Q.rational(num, den) : null;
}

function integerSquareRoot(n: bigint): bigint | null {
  if (n < 2n) return n;
  let x = BigInt(Math.floor(Math.sqrt(Number(n))));
  // Newton steps correct the float estimate for integers beyond 2^53.
  for (let step = 0; step < 200 && x * x !== n; step++) {
    const next = (x + n / x) / 2n;
    if (next === x) break;
    x = next;
  }
  return x * x === n ? x : null;
}

/**
 * The operands of a scalar node (binary, negate, call), which the scalar walks below descend into; none for a leaf,
 * nor for a compound (tuple, set, relation, ...), which they do not look inside.
 */
export function scalarOperands(expr: Expr): readonly Expr[] {
  switch (expr.kind) {
    case 'binary':
      return [expr.left, expr.right];
    case 'negate':
      return [expr.operand];
    case 'call':
      return expr.args;
    default:
      return [];
  }
}

/** Symbols an expression depends on, in first-seen order. */
export function freeSymbols(expr: Expr, into: Set<string> = new Set()): Set<string> {
  if (expr.kind === 'symbol') into.add(expr.name);
  for (const operand of scalarOperands(expr)) freeSymbols(operand, into);
  return into;
}

export function containsInfinity(expr: Expr): boolean {
  return (
    (expr.kind === 'constant' && expr.name === 'infinity') || scalarOperands(expr).some(containsInfinity)
  );
}

const realOnly = (name: string, value: Complex): number => {
  if (value.im !== 0) throw new RangeError(`${name} of a complex number`);
  return value.re;
};

/** Floating-point value at the given symbol assignment, in the complex plane (principal branches). */
export function evaluateComplex(expr: Expr, env: ReadonlyMap<string, Complex>, deadline: Deadline): Complex {
  deadline.check();
  switch (expr.kind) {
    case 'number':
      return complex(Q.toNumber(expr.value));
    case 'symbol': {
      const value = env.get(expr.name);
      if (value === undefined) throw new RangeError(`no value for ${expr.name}`);
      return value;
    }
    case 'constant':
      if (expr.name === 'pi') return complex(Math.PI);
      if (expr.name === 'e') return complex(Math.E);
      if (expr.name === 'i') return complex(0, 1);
      return complex(Number.POSITIVE_INFINITY);
    case 'negate':
      return cneg(evaluateComplex(expr.operand, env, deadline));
    case 'binary': {
      const left = evaluateComplex(expr.left, env, deadline);
      const right = evaluateComplex(expr.right, env, deadline);
      if (expr.op === '+') return cadd(left, right);
      if (expr.op === '-') return csub(left, right);
      if (expr.op === '*') return cmul(left, right);
      if (expr.op === '/') return cdiv(left, right);
      if (expr.op === '^') return cpow(left, right);
      throw new RangeError('± has two values');
    }
    case 'call': {
      const args = expr.args.map((argument) => evaluateComplex(argument, env, deadline));
      return expr.name === 'operator'
        ? opaqueOperator(expr.label ?? '', args[0]!)
        : evaluateCall(expr.name, args);
    }
    default:
      throw new RangeError(`${expr.kind} is not a scalar`);
  }
}

/**
 * A stand-in value for an operator we do not evaluate (a sum, product or integral), as a function of its body's
 * value: log(z + a) + b·z with a and b drawn from the written operator. Different operators or limits give
 * different functions, and the function is neither homogeneous, odd nor multiplicative, so no factor, sign or
 * power passes through it (\prod_{k=1}^n 2k is not 2\prod_{k=1}^n k).
 */
function opaqueOperator(label: string, body: Complex): Complex {
  const random = seededRandom(hashSeed(label));
  const [shift, slope] = [0.5 + random(), 0.5 + random()];
  return cadd(clog(cadd(body, complex(shift))), cmul(complex(slope), body));
}

function evaluateCall(name: string, args: Complex[]): Complex {
  const [x = complex(Number.NaN), y] = args;
  switch (name) {
    case 'sqrt':
      return csqrt(x);
    case 'root':
      return cpow(x, cdiv(complex(1), y!));
    case 'abs':
      return complex(cabs(x));
    case 'floor':
      return complex(Math.floor(realOnly(name, x)));
    case 'ceil':
      return complex(Math.ceil(realOnly(name, x)));
    case 'factorial': {
      const n = realOnly(name, x);
      if (n > 170) throw new TooLargeError(`factorial of ${n}`);
      return complex(gamma(n + 1));
    }
    case 'binom': {
      const [n, k] = [realOnly(name, x), realOnly(name, y!)];
      if (n > 170) throw new TooLargeError(`binomial of ${n}`);
      return complex(gamma(n + 1) / (gamma(k + 1) * gamma(n - k + 1)));
    }
    case 'exp':
      return cexp(x);
    case 'ln':
      return clog(x);
    case 'log':
      // \log without a base is read as the natural logarithm, as in Math-Verify; \log_b x is log x / log b.
      return y === undefined ? clog(x) : cdiv(clog(x), clog(y));
    case 'sin':
      return csin(x);
    case 'cos':
      return ccos(x);
    case 'tan':
      return cdiv(csin(x), ccos(x));
    case 'sec':
      return cdiv(complex(1), ccos(x));
    case 'csc':
      return cdiv(complex(1), csin(x));
    case 'cot':
      return cdiv(ccos(x), csin(x));
    case 'arcsin':
      return casin(x);
    case 'arccos':
      return csub(complex(Math.PI / 2), casin(x));
    case 'arctan':
      return catan(x);
    case 'sinh':
      return cmul(complex(0.5), csub(cexp(x), cexp(cneg(x))));
    case 'cosh':
      return cmul(complex(0.5), cadd(cexp(x), cexp(cneg(x))));
    case 'tanh': {
      const [plus, minus] = [cexp(x), cexp(cneg(x))];
      return cdiv(csub(plus, minus), cadd(plus, minus));
    }
    default:
      throw new RangeError(`unknown function ${name}`);
  }
}
