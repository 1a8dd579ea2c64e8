import type { Rng } from './rng';

/**
 * How hard a problem is for a small model: 1 can be done in the head (answering directly is fine), 2 and 3 need
 * code (multi-digit products, modular powers, sums of series), 4 needs two tool calls, the second using the
 * printed result of the first.
 */
export type ArithLevel = 1 | 2 | 3 | 4;

export type ArithKind =
  | 'add'
  | 'small-product'
  | 'product'
  | 'mulmod'
  | 'long-product'
  | 'powmod'
  | 'power-sum'
  | 'digit-sum'
  | 'powmod-chain'
  | 'small-mulmod'
  | 'small-powmod'
  | 'powmod-twice'
  | 'floor-div'
  | 'xor'
  | 'largest'
  | 'diff-mod'
  | 'xor-then-add'
  | 'div-then-mod';

/** A problem before it gets its id and split. */
export interface ArithDraft {
  kind: ArithKind;
  level: ArithLevel;
  /** The text shown to the model after "Q: ". */
  question: string;
  /** The exact gold answer in decimal. */
  answer: string;
  /**
   * Reference code, one entry per tool call. "{0}" in a later step stands for the printed output of step 0: the
   * solution has to read the tool's output and use it.
   */
  steps: string[];
}

function modPow(base: bigint, exponent: bigint, modulus: bigint): bigint {
  let result = 1n;
  let b = base % modulus;
  let e = exponent;
  while (e > 0n) {
    if (e & 1n) result = (result * b) % modulus;
    b = (b * b) % modulus;
    e >>= 1n;
  }
  return result;
}

function signedTerm(rng: Rng, digits: number): { text: string; value: bigint } {
  const c = rng.digits(digits);
  return rng.chance(0.5) ? { text: `+${c}`, value: BigInt(c) } : { text: `-${c}`, value: -BigInt(c) };
}

function digitSum(value: bigint): bigint {
  let sum = 0n;
  for (const digit of value.toString()) sum += BigInt(digit);
  return sum;
}

const PRIMES = [97, 101, 211, 307, 401, 503, 601, 701, 809, 907, 997, 1009, 1201, 1301, 1409];
/** Two-digit moduli of the small kinds: answers of at most two digits, questions of few digits to copy. */
const SMALL_PRIMES = [53, 59, 61, 67, 71, 73, 79, 83, 89, 97];

/** One generator per kind; each returns a complete draft with its gold computed exactly with BigInt. */
export const ARITH_KINDS: Record<ArithKind, { level: ArithLevel; draft(rng: Rng): ArithDraft }> = {
  add: {
    level: 1,
    draft(rng) {
      const a = rng.digits(2);
      const b = rng.digits(2);
      return {
        kind: 'add',
        level: 1,
        question: `${a}+${b}=?`,
        answer: String(a + b),
        steps: [`print(${a}+${b})`],
      };
    },
  },
  'small-product': {
    level: 1,
    draft(rng) {
      const a = rng.int(2, 9);
      const b = rng.digits(2);
      return {
        kind: 'small-product',
        level: 1,
        question: `${a}*${b}=?`,
        answer: String(a * b),
        steps: [`print(${a}*${b})`],
      };
    },
  },
  product: {
    level: 2,
    draft(rng) {
      const a = rng.digits(3);
      const b = rng.digits(rng.int(2, 3));
      const c = signedTerm(rng, 3);
      const expression = `${a}*${b}${c.text}`;
      const answer = (BigInt(a) * BigInt(b) + c.value).toString();
      return {
        kind: 'product',
        level: 2,
        question: `${expression}=?`,
        answer,
        steps: [`print(${expression})`],
      };
    },
  },
  mulmod: {
    level: 2,
    draft(rng) {
      const a = rng.digits(3);
      const b = rng.digits(3);
      const m = rng.pick(PRIMES);
      const answer = ((BigInt(a) * BigInt(b)) % BigInt(m)).toString();
      return {
        kind: 'mulmod',
        level: 2,
        question: `${a}*${b} mod ${m}=?`,
        answer,
        steps: [`print(${a}*${b}%${m})`],
      };
    },
  },
  'long-product': {
    level: 3,
    draft(rng) {
      const a = rng.digits(4);
      const b = rng.digits(rng.int(3, 4));
      const c = signedTerm(rng, 4);
      const expression = `${a}*${b}${c.text}`;
      const answer = (BigInt(a) * BigInt(b) + c.value).toString();
      return {
        kind: 'long-product',
        level: 3,
        question: `${expression}=?`,
        answer,
        steps: [`print(${expression})`],
      };
    },
  },
  powmod: {
    level: 3,
    draft(rng) {
      const a = rng.int(2, 99);
      const e = rng.int(20, 999);
      const m = rng.pick(PRIMES);
      const answer = modPow(BigInt(a), BigInt(e), BigInt(m)).toString();
      return {
        kind: 'powmod',
        level: 3,
        question: `${a}^${e} mod ${m}=?`,
        answer,
        steps: [`print(pow(${a},${e},${m}))`],
      };
    },
  },
  'power-sum': {
    level: 3,
    draft(rng) {
      const p = rng.int(1, 3);
      const n = rng.int(20, 199);
      let sum = 0n;
      for (let k = 1n; k <= BigInt(n); k++) sum += k ** BigInt(p);
      const term = (k: number | string) => (p === 1 ? `${k}` : `${k}^${p}`);
      return {
        kind: 'power-sum',
        level: 3,
        question: `${term(1)}+${term(2)}+...+${term(n)}=?`,
        answer: sum.toString(),
        steps: [`print(sum(k${p === 1 ? '' : `**${p}`} for k in range(1,${n + 1})))`],
      };
    },
  },
  'digit-sum': {
    level: 4,
    draft(rng) {
      const a = rng.digits(4);
      const b = rng.digits(4);
      return {
        kind: 'digit-sum',
        level: 4,
        question: `n=${a}*${b}. digit sum of n=?`,
        answer: digitSum(BigInt(a) * BigInt(b)).toString(),
        steps: [`print(${a}*${b})`, "print(sum(int(d) for d in '{0}'))"],
      };
    },
  },
  'powmod-chain': {
    level: 4,
    draft(rng) {
      const a = rng.int(2, 99);
      const e = rng.int(20, 999);
      const m = rng.pick(PRIMES);
      const c = rng.int(1, 9);
      const d = rng.int(1, 9);
      const r = modPow(BigInt(a), BigInt(e), BigInt(m));
      return {
        kind: 'powmod-chain',
        level: 4,
        question: `r=${a}^${e} mod ${m}. (r+${c})*(r+${d})=?`,
        answer: ((r + BigInt(c)) * (r + BigInt(d))).toString(),
        steps: [`print(pow(${a},${e},${m}))`, `print(({0}+${c})*({0}+${d}))`],
      };
    },
  },
  'small-mulmod': {
    level: 2,
    draft(rng) {
      const a = rng.digits(2);
      const b = rng.digits(2);
      const m = rng.pick(SMALL_PRIMES);
      return {
        kind: 'small-mulmod',
        level: 2,
        question: `${a}*${b} mod ${m}=?`,
        answer: ((a * b) % m).toString(),
        steps: [`print(${a}*${b}%${m})`],
      };
    },
  },
  'small-powmod': {
    level: 3,
    draft(rng) {
      const a = rng.int(2, 99);
      const e = rng.int(10, 99);
      const m = rng.pick(SMALL_PRIMES);
      return {
        kind: 'small-powmod',
        level: 3,
        question: `${a}^${e} mod ${m}=?`,
        answer: modPow(BigInt(a), BigInt(e), BigInt(m)).toString(),
        steps: [`print(pow(${a},${e},${m}))`],
      };
    },
  },
  'powmod-twice': {
    level: 4,
    draft(rng) {
      const a = rng.int(2, 99);
      const e = rng.int(10, 99);
      const m = rng.pick(SMALL_PRIMES);
      const f = rng.int(10, 99);
      const p = rng.pick(SMALL_PRIMES);
      const r = modPow(BigInt(a), BigInt(e), BigInt(m));
      return {
        kind: 'powmod-twice',
        level: 4,
        question: `r=${a}^${e} mod ${m}. r^${f} mod ${p}=?`,
        answer: modPow(r, BigInt(f), BigInt(p)).toString(),
        steps: [`print(pow(${a},${e},${m}))`, `print(pow({0},${f},${p}))`],
      };
    },
  },
  // The kinds of the `pretrain` mix: other operations and other wordings than the demo's kinds, with the same
  // skills underneath (copy numbers from the question into code, and from an output into the answer or the next
  // call), so that a base model trained on them knows how to copy but has never seen the demo's problems.
  'floor-div': {
    level: 2,
    draft(rng) {
      const a = rng.digits(rng.int(3, 4));
      const b = rng.digits(2);
      return {
        kind: 'floor-div',
        level: 2,
        question: `${a} div ${b}=?`,
        answer: String(Math.floor(a / b)),
        steps: [`print(${a}//${b})`],
      };
    },
  },
  xor: {
    level: 2,
    draft(rng) {
      const a = rng.digits(rng.int(2, 3));
      const b = rng.digits(rng.int(2, 3));
      return {
        kind: 'xor',
        level: 2,
        question: `${a} xor ${b}=?`,
        answer: String(a ^ b),
        steps: [`print(${a}^${b})`],
      };
    },
  },
  largest: {
    level: 1,
    draft(rng) {
      const values = [rng.digits(rng.int(2, 3)), rng.digits(rng.int(2, 3)), rng.digits(rng.int(2, 3))];
      return {
        kind: 'largest',
        level: 1,
        question: `largest of ${values.join(', ')}=?`,
        answer: String(Math.max(...values)),
        steps: [`print(max(${values.join(',')}))`],
      };
    },
  },
  'diff-mod': {
    level: 3,
    draft(rng) {
      const a = rng.digits(rng.int(2, 3));
      const b = rng.digits(rng.int(2, 3));
      const m = rng.pick(SMALL_PRIMES);
      return {
        kind: 'diff-mod',
        level: 3,
        question: `(${a}-${b}) mod ${m}=?`,
        // Python's % of a negative number is non-negative, as is this.
        answer: String((((a - b) % m) + m) % m),
        steps: [`print((${a}-${b})%${m})`],
      };
    },
  },
  'xor-then-add': {
    level: 4,
    draft(rng) {
      const a = rng.digits(rng.int(2, 3));
      const b = rng.digits(rng.int(2, 3));
      const c = rng.digits(2);
      return {
        kind: 'xor-then-add',
        level: 4,
        question: `t=${a} xor ${b}. t+${c}=?`,
        answer: String((a ^ b) + c),
        steps: [`print(${a}^${b})`, `print({0}+${c})`],
      };
    },
  },
  'div-then-mod': {
    level: 4,
    draft(rng) {
      const a = rng.digits(4);
      const b = rng.digits(2);
      const m = rng.pick(SMALL_PRIMES);
      return {
        kind: 'div-then-mod',
        level: 4,
        question: `q=${a} div ${b}. q mod ${m}=?`,
        answer: String(Math.floor(a / b) % m),
        steps: [`print(${a}//${b})`, `print({0}%${m})`],
      };
    },
  },
};
