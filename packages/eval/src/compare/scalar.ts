import type { Expr } from '../latex/ast';
import { TooLargeError } from '../limits';
import { type Complex, cabs, cdiv, complex, csub, isFiniteComplex } from '../math/complex';
import * as Q from '../math/rational';
import { seededRandom } from '../seeded-random';
import type { CompareContext } from './context';
import { containsInfinity, evaluateComplex, evaluateExact, freeSymbols, scalarOperands } from './evaluate';

/** Probing wants this many points where both sides are defined, out of at most maxProbes tries. */
const probesNeeded = 6;
const maxProbes = 24;
/** Exact rational probe points: each misses a nonzero difference of degree d with probability <= d / 280. */
const exactProbes = 4;

/**
 * Whether two complex values agree within a relative tolerance. Against an exact zero the test is absolute
 * (1e-12), so sin(pi) equals 0 while 4.6e-25 still differs from 4.6e-24.
 */
function close(a: Complex, b: Complex, relTol: number): boolean {
  if (!isFiniteComplex(a) || !isFiniteComplex(b)) return a.re === b.re && a.im === b.im;
  const difference = cabs(csub(a, b));
  if ((a.re === 0 && a.im === 0) || (b.re === 0 && b.im === 0)) return difference <= 1e-12;
  return difference <= relTol * Math.max(cabs(a), cabs(b));
}

/**
 * Scalar equality: exact rationals when both sides are rational, else floats with relative tolerance, else
 * agreement at random points of the free symbols (a seeded generator keeps verdicts reproducible).
 */
export function scalarsEqual(pred: Expr, gold: Expr, context: CompareContext): boolean {
  const exactGold = evaluateExact(gold, context.deadline);
  const exactPred = exactGold && evaluateExact(pred, context.deadline);
  if (exactGold && exactPred) {
    if (percentVariants(exactGold, context).some((g) => Q.equals(g, exactPred))) return true;
    // Two exact values that differ are different; a decimal on either side is an approximation of the other.
    if (!hasDecimal(gold) && !hasDecimal(pred)) return false;
  }

  const symbols = [...freeSymbols(gold, freeSymbols(pred))];
  if (symbols.length === 0) {
    const predValue = numericValue(pred, context);
    const goldValue = numericValue(gold, context);
    return percentFactors(context).some((factor) =>
      close(predValue, complex(goldValue.re * factor, goldValue.im * factor), context.relTol),
    );
  }
  const exact = probeExactly(pred, gold, symbols, context);
  if (exact !== null) return exact;
  return probe(
    symbols,
    context,
    (env) => [evaluateComplex(pred, env, context.deadline), evaluateComplex(gold, env, context.deadline)],
    (a, b) => closeProbe(a, b, Math.max(context.relTol, 1e-9)),
  );
}

/** Whether a/b is the same nonzero constant at every probe point (equations up to a factor). */
export function proportional(a: Expr, b: Expr, context: CompareContext, positive: boolean): boolean {
  const symbols = [...freeSymbols(a, freeSymbols(b))];
  let ratio: Complex | null = null;
  return probe(
    symbols,
    context,
    (env) => [evaluateComplex(a, env, context.deadline), evaluateComplex(b, env, context.deadline)],
    (x, y) => {
      if (cabs(x) < 1e-12 && cabs(y) < 1e-12) return true;
      const current = cdiv(x, y);
      if (!isFiniteComplex(current) || cabs(current) < 1e-12) return false;
      if (positive && (Math.abs(current.im) > 1e-9 || current.re <= 0)) return false;
      ratio ??= current;
      return close(current, ratio, 1e-8);
    },
  );
}

function hasDecimal(expr: Expr): boolean {
  return (expr.kind === 'number' && expr.decimal === true) || scalarOperands(expr).some(hasDecimal);
}

function numericValue(expr: Expr, context: CompareContext): Complex {
  const value = evaluateComplex(expr, new Map(), context.deadline);
  if (!isFiniteComplex(value) && !containsInfinity(expr)) throw new TooLargeError('value overflows a double');
  return value;
}

/**
 * The factors the gold may be scaled by to meet the prediction when one side carried a percent sign: 1 (the sign
 * dropped, 'strip'), or the ratio the sign means ('ratio'), or either of them. "10%" is 10 or 0.1, never 1000.
 */
function percentFactors(context: CompareContext): number[] {
  // Both sides in percent (28\% and 0.28\%) are numbers of the same kind: no scaling.
  if (context.predPercent === context.goldPercent || context.percent === 'strip') return [1];
  const towardsPred = context.goldPercent ? 0.01 : 100;
  return context.percent === 'ratio' || context.percentBinding ? [towardsPred] : [1, towardsPred];
}

function percentVariants(gold: Q.Rational, context: CompareContext): Q.Rational[] {
  return percentFactors(context).map((factor) =>
    factor === 1 ? gold : Q.mul(gold, factor === 100 ? Q.rational(100n) : Q.rational(1n, 100n)),
  );
}

/**
 * Rational functions (polynomials and quotients with rational coefficients) are compared exactly at random
 * rational points: by the Schwartz-Zippel lemma a nonzero difference of degree d vanishes at a random point of a
 * set S with probability at most d / |S|. This sees differences that floating point cannot, such as one changed
 * term among a hundred ninth powers. Null when either side is not a rational function or grows too large, so the
 * caller probes in floating point instead.
 */
function probeExactly(pred: Expr, gold: Expr, symbols: string[], context: CompareContext): boolean | null {
  // Square roots and absolute values of rational points hide the complex branches the float probe checks.
  if (!isRationalFunction(pred) || !isRationalFunction(gold)) return null;
  const random = seededRandom(0x2a7);
  for (let point = 0; point < exactProbes; point++) {
    const env = new Map<string, Q.Rational>();
    for (const symbol of symbols) {
      const numerator = BigInt(Math.floor(random() * 41) - 20 || 21);
      env.set(symbol, Q.rational(numerator, BigInt(1 + Math.floor(random() * 7))));
    }
    try {
      const a = evaluateExact(pred, context.deadline, env);
      const b = a && evaluateExact(gold, context.deadline, env);
      if (!a || !b) return null;
      if (!Q.equals(a, b)) return false;
    } catch (error) {
      if (error instanceof TooLargeError) return null;
      throw error;
    }
  }
  return true;
}

function isRationalFunction(expr: Expr): boolean {
  switch (expr.kind) {
    case 'number':
    case 'symbol':
      return true;
    case 'negate':
      return isRationalFunction(expr.operand);
    case 'binary':
      return expr.op !== '±' && isRationalFunction(expr.left) && isRationalFunction(expr.right);
    default:
      return false;
  }
}

/** At probe points values are of order one, so cancellation noise gets an absolute floor. */
function closeProbe(a: Complex, b: Complex, relTol: number): boolean {
  return close(a, b, relTol) || cabs(csub(a, b)) <= 1e-10;
}

/**
 * Evaluates both sides at seeded random points and requires agreement wherever both are defined. Points run from
 * positive reals through both signs to complex values; a point where either side is undefined is skipped, and a
 * verdict of "equal" needs `probesNeeded` usable points.
 */
function probe(
  symbols: string[],
  context: CompareContext,
  evaluate: (env: Map<string, Complex>) => [Complex, Complex],
  agree: (pred: Complex, gold: Complex) => boolean,
): boolean {
  const random = seededRandom(0x5eed);
  let usable = 0;
  for (let point = 0; point < maxProbes && usable < probesNeeded; point++) {
    context.deadline.check();
    const env = new Map<string, Complex>();
    for (const symbol of symbols) {
      // Two scales, so floor/ceil and slowly varying terms see different values too.
      const magnitude = (point % 3 === 1 ? 10 : 1) * (0.3 + 2.7 * random());
      const sign = point >= 2 && random() < 0.5 ? -1 : 1;
      const imaginary = point % 6 === 5 ? 0.5 + random() : 0;
      env.set(symbol, complex(sign * magnitude, imaginary));
    }
    let values: [Complex, Complex];
    try {
      values = evaluate(env);
    } catch (error) {
      if (error instanceof RangeError) continue;
      throw error;
    }
    const [a, b] = values;
    const aDefined = isFiniteComplex(a);
    if (aDefined !== isFiniteComplex(b)) return false;
    if (!aDefined) continue;
    if (!agree(a, b)) return false;
    usable += 1;
  }
  return usable >= probesNeeded;
}
