import { TooLargeError } from '../limits';

/** An exact rational p/q with q > 0 and gcd(p, q) = 1. Decimals in answers ("0.125") become exact rationals. */
export interface Rational {
  readonly num: bigint;
  readonly den: bigint;
}

/** Integers above this many bits are not built exactly: 10^(10^10) must fail fast instead of exhausting memory. */
const maxBits = 4096;

function gcd(a: bigint, b: bigint): bigint {
  let x = a < 0n ? -a : a;
  let y = b < 0n ? -b : b;
  while (y !== 0n) [x, y] = [y, x % y];
  return x;
}

function bitLength(value: bigint): number {
  return (value < 0n ? -value : value).toString(2).length;
}

export function rational(num: bigint, den = 1n): Rational {
  if (den === 0n) throw new RangeError('rational with zero denominator');
  const sign = den < 0n ? -1n : 1n;
  const divisor = gcd(num, den) || 1n;
  const result = { num: (sign * num) / divisor, den: (sign * den) / divisor };
  if (bitLength(result.num) > maxBits || bitLength(result.den) > maxBits) {
    throw new TooLargeError('exact rational exceeds 4096 bits');
  }
  return result;
}

/** Parses "12", "-0.125", ".5", "4.5e33" exactly; null for anything else. */
export function parseDecimal(text: string): Rational | null {
  const match = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d{1,4}))?$/.exec(text);
  if (!match || (match[2] === '' && (match[3] ?? '') === '')) return null;
  const [, sign, whole, fraction = '', exponentText = '0'] = match;
  const exponent = Number(exponentText) - fraction.length;
  if (Math.abs(exponent) > 1000) throw new TooLargeError(`decimal exponent ${exponent} out of range`);
  const magnitude = BigInt(`${whole}${fraction}` || '0');
  const digits = sign === '-' ? -magnitude : magnitude;
  return exponent >= 0
    ? rational(digits * 10n ** BigInt(exponent))
    : rational(digits, 10n ** BigInt(-exponent));
}

export const add = (a: Rational, b: Rational): Rational =>
  rational(a.num * b.den + b.num * a.den, a.den * b.den);
export const sub = (a: Rational, b: Rational): Rational =>
  rational(a.num * b.den - b.num * a.den, a.den * b.den);
export const mul = (a: Rational, b: Rational): Rational => rational(a.num * b.num, a.den * b.den);
export const neg = (a: Rational): Rational => ({ num: -a.num, den: a.den });
export const isInteger = (a: Rational): boolean => a.den === 1n;
export const equals = (a: Rational, b: Rational): boolean => a.num === b.num && a.den === b.den;

export function div(a: Rational, b: Rational): Rational | null {
  return b.num === 0n ? null : rational(a.num * b.den, a.den * b.num);
}

/** a^n for integer n; refuses results whose size estimate exceeds the bit budget before computing them. */
export function powInt(base: Rational, exponent: bigint): Rational | null {
  if (exponent === 0n) return rational(1n);
  if (base.num === 0n) return exponent > 0n ? base : null;
  const magnitude = exponent < 0n ? -exponent : exponent;
  const size = (bitLength(base.num) + bitLength(base.den)) * Number(magnitude);
  if (size > maxBits * 2) throw new TooLargeError(`power with about ${size} bits`);
  const raised = rational(base.num ** magnitude, base.den ** magnitude);
  return exponent < 0n ? div(rational(1n), raised) : raised;
}

/** Exact integer n! for small n; larger factorials are left to floating point. */
export function factorial(n: Rational): Rational | null {
  if (!isInteger(n) || n.num < 0n || n.num > 300n) return null;
  let product = 1n;
  for (let k = 2n; k <= n.num; k++) product *= k;
  return rational(product);
}

export function toNumber(a: Rational): number {
  const quotient = Number(a.num) / Number(a.den);
  if (Number.isFinite(quotient)) return quotient;
  // Both parts overflow a double while their ratio may not: scale them down together.
  const shift = BigInt(Math.max(bitLength(a.num), bitLength(a.den)) - 1000);
  return Number(a.num >> shift) / Number(a.den >> shift);
}
