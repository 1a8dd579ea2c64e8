/** Complex numbers for probing expressions: sqrt(-1), log of negatives and i must not break evaluation. */
export interface Complex {
  readonly re: number;
  readonly im: number;
}

export const complex = (re: number, im = 0): Complex => ({ re, im });
export const isFiniteComplex = (z: Complex): boolean => Number.isFinite(z.re) && Number.isFinite(z.im);
export const cadd = (a: Complex, b: Complex): Complex => complex(a.re + b.re, a.im + b.im);
export const csub = (a: Complex, b: Complex): Complex => complex(a.re - b.re, a.im - b.im);
export const cneg = (a: Complex): Complex => complex(-a.re, -a.im);
export const cabs = (a: Complex): number => Math.hypot(a.re, a.im);

export function cmul(a: Complex, b: Complex): Complex {
  if (a.im === 0 && b.im === 0) return complex(a.re * b.re);
  return complex(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re);
}

export function cdiv(a: Complex, b: Complex): Complex {
  if (a.im === 0 && b.im === 0) return complex(a.re / b.re);
  const scale = b.re * b.re + b.im * b.im;
  return complex((a.re * b.re + a.im * b.im) / scale, (a.im * b.re - a.re * b.im) / scale);
}

export function cexp(a: Complex): Complex {
  const magnitude = Math.exp(a.re);
  return a.im === 0 ? complex(magnitude) : complex(magnitude * Math.cos(a.im), magnitude * Math.sin(a.im));
}

/** Principal logarithm. */
export function clog(a: Complex): Complex {
  if (a.im === 0 && a.re > 0) return complex(Math.log(a.re));
  return complex(Math.log(cabs(a)), Math.atan2(a.im, a.re));
}

/**
 * a^b. Real bases with integer exponents stay real and exact in floating point; a real negative base with an
 * exponent p/q of odd q gives the real root, as a reader of "(-8)^{1/3} = -2" expects.
 */
export function cpow(a: Complex, b: Complex): Complex {
  if (a.im === 0 && b.im === 0) {
    if (a.re >= 0 || Number.isInteger(b.re)) return complex(a.re ** b.re);
    const oddRoot = oddDenominator(b.re);
    if (oddRoot !== null) return complex(-((-a.re) ** b.re) * (oddRoot.numeratorOdd ? 1 : -1));
  }
  if (a.re === 0 && a.im === 0) return b.re > 0 ? complex(0) : complex(Number.POSITIVE_INFINITY);
  return cexp(cmul(b, clog(a)));
}

/** For x = p/q with small odd q, whether p is odd (so (-a)^x = -(a^x)); null if x is not such a fraction. */
function oddDenominator(x: number): { numeratorOdd: boolean } | null {
  for (const q of [3, 5, 7, 9]) {
    const p = Math.round(x * q);
    if (Math.abs(p / q - x) < 1e-12) return { numeratorOdd: Math.abs(p) % 2 === 1 };
  }
  return null;
}

export function csqrt(a: Complex): Complex {
  if (a.im === 0 && a.re >= 0) return complex(Math.sqrt(a.re));
  if (a.im === 0) return complex(0, Math.sqrt(-a.re));
  const r = cabs(a);
  const re = Math.sqrt((r + a.re) / 2);
  const im = Math.sign(a.im) * Math.sqrt((r - a.re) / 2);
  return complex(re, im);
}

const I = complex(0, 1);

export function csin(a: Complex): Complex {
  if (a.im === 0) return complex(Math.sin(a.re));
  return complex(Math.sin(a.re) * Math.cosh(a.im), Math.cos(a.re) * Math.sinh(a.im));
}

export function ccos(a: Complex): Complex {
  if (a.im === 0) return complex(Math.cos(a.re));
  return complex(Math.cos(a.re) * Math.cosh(a.im), -Math.sin(a.re) * Math.sinh(a.im));
}

/** asin z = -i log(iz + sqrt(1 - z^2)). */
export function casin(a: Complex): Complex {
  if (a.im === 0 && Math.abs(a.re) <= 1) return complex(Math.asin(a.re));
  const inner = cadd(cmul(I, a), csqrt(csub(complex(1), cmul(a, a))));
  return cmul(complex(0, -1), clog(inner));
}

/** atan z = (i/2) log((i + z)/(i - z)). */
export function catan(a: Complex): Complex {
  if (a.im === 0) return complex(Math.atan(a.re));
  return cmul(complex(0, 0.5), clog(cdiv(cadd(I, a), csub(I, a))));
}

/** Lanczos approximation of the gamma function, for factorials and binomials of non-integers. */
export function gamma(x: number): number {
  if (x < 0.5) return Math.PI / (Math.sin(Math.PI * x) * gamma(1 - x));
  const g = 7;
  const coefficients = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
    12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  const shifted = x - 1;
  let sum = coefficients[0]!;
  for (let k = 1; k < g + 2; k++) sum += coefficients[k]! / (shifted + k);
  const t = shifted + g + 0.5;
  return Math.sqrt(2 * Math.PI) * t ** (shifted + 0.5) * Math.exp(-t) * sum;
}
