import type { Expr } from '../latex/ast';
import { TooLargeError } from '../limits';
import { type Complex, cabs, cdiv, complex, csub, isFiniteComplex } from '../math/complex';
import * as Q from '../math/rational';
import type { CompareContext } from './context';
import { containsInfinity, evaluateComplex, evaluateExact, freeSymbols } from './evaluate';

/** Random points at which symbolic expressions are probed: mostly real (both signs), two complex. */
const probeCount = 8;

/** Whether two complex values agree within a relative tolerance (absolute near zero). */
export function close(a: Complex, b: Complex, relTol: number): boolean {
  if (!isFiniteComplex(a) || !isFiniteComplex(b)) return a.re === b.re && a.im === b.im;
  return cabs(csub(a, b)) <= relTol * Math.max(cabs(a), cabs(b), 1e-9);
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
  return probe(
    symbols,
    context,
    (env) => {
      const difference = [
        evaluateComplex(pred, env, context.deadline),
        evaluateComplex(gold, env, context.deadline),
      ];
      return difference as [Complex, Complex];
    },
    (a, b) => close(a, b, Math.max(context.relTol, 1e-9)),
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
  switch (expr.kind) {
    case 'number':
      return expr.decimal === true;
    case 'binary':
      return hasDecimal(expr.left) || hasDecimal(expr.right);
    case 'negate':
      return hasDecimal(expr.operand);
    case 'call':
      return expr.args.some(hasDecimal);
    default:
      return false;
  }
}

function numericValue(expr: Expr, context: CompareContext): Complex {
  const value = evaluateComplex(expr, new Map(), context.deadline);
  if (!isFiniteComplex(value) && !containsInfinity(expr)) throw new TooLargeError('value overflows a double');
  return value;
}

function percentFactors(context: CompareContext): number[] {
  if (!context.predPercent && !context.goldPercent) return [1];
  if (context.percent === 'strip') return [1];
  const towardsPred = context.goldPercent ? 0.01 : 100;
  return context.percent === 'ratio' ? [towardsPred] : [1, 0.01, 100];
}

function percentVariants(gold: Q.Rational, context: CompareContext): Q.Rational[] {
  return percentFactors(context).map((factor) =>
    factor === 1 ? gold : Q.mul(gold, factor === 100 ? Q.rational(100n) : Q.rational(1n, 100n)),
  );
}

/**
 * Evaluates both sides at seeded random points and requires agreement wherever both are defined; points where
 * either side is undefined are skipped, and at least half of them must be usable.
 */
function probe(
  symbols: string[],
  context: CompareContext,
  evaluate: (env: Map<string, Complex>) => [Complex, Complex],
  agree: (pred: Complex, gold: Complex) => boolean,
): boolean {
  const random = seededRandom(0x5eed);
  let usable = 0;
  for (let point = 0; point < probeCount; point++) {
    context.deadline.check();
    const env = new Map<string, Complex>();
    for (const symbol of symbols) {
      const magnitude = 0.3 + 2.2 * random();
      const sign = point % 3 === 2 ? -1 : 1;
      env.set(
        symbol,
        point >= probeCount - 2 ? complex(sign * magnitude, 0.5 + random()) : complex(sign * magnitude),
      );
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
  return usable >= probeCount / 2;
}

/** mulberry32: a tiny deterministic generator, so the same pair always gets the same verdict. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
