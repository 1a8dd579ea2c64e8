import { type ArithSplit, drawDistinct } from '../arith-tool/problems';
import type { Rng } from '../arith-tool/rng';

/**
 * The knobs of the chain-tool task: each sets one precondition of a TAO-RL mechanism, so that an experiment can
 * turn it up or down (docs/explanation/chain-tool-task.md says what each one is meant to make measurable).
 */
export interface ChainKnobs {
  /**
   * Share of problems whose answer can be read from the question's surface: their last step is `x=max(x,c)` with
   * c in 100..199, above every value the chain can reach (moduli are below 100), so the answer is c whatever was
   * computed. A policy answers these right without a valid execution (no call, or only failed calls): what
   * TAO-RL's C1 filter acts on. 0 to about 0.3. Default 0.15.
   */
  luckyShare: number;
  /**
   * Share of problems whose chain ends with a loop, `while x is odd, x=x*b mod m.`: after the output before it and
   * after each of its calls, the right next step (call again, or answer) depends on the parity of what the tool
   * printed, and each call's result is odd about half the time. These are the post-tool decisions the entropy
   * bonus is meant to act on. Default 1.
   */
  loopShare: number;
  /**
   * Calls of the chain before its loop: drawn uniformly from [minSteps, maxSteps] (a lucky problem's max step
   * counts as one). Defaults 3 and 4.
   */
  minSteps: number;
  maxSteps: number;
  /**
   * Most calls a solution may need (the loop's included); drafts that need more are drawn again. Default 6: with
   * 3-6 calls in a 512-token context a redundant or failed call costs length, and on the longest chains the answer.
   */
  maxCalls: number;
}

export const DEFAULT_CHAIN_KNOBS: Readonly<ChainKnobs> = {
  luckyShare: 0.15,
  loopShare: 1,
  minSteps: 3,
  maxSteps: 4,
  maxCalls: 6,
};

/** One problem of the chain-tool task. */
export interface ChainProblem {
  /** "chain-<split>-<64-bit hash of the question>": stable, usable as a groupId. */
  id: string;
  split: ArithSplit;
  /** The text shown to the model after "Q: ". */
  question: string;
  /** The exact gold answer in decimal. */
  answer: string;
  /**
   * Reference code, one entry per tool call a solution needs (the loop's calls included); "{x}" in a step stands
   * for the printed output of the call before.
   */
  steps: string[];
  /** The calls a solution needs (steps.length): the trainer's level and required calls. */
  level: number;
  /** The answer is readable from the question (a last `max` step). */
  lucky: boolean;
  /**
   * The loop, when the chain has one: the code of its call ("{x}" = the previous output), where its calls start in
   * `steps`, and how many the gold takes (0 when the value before it is even). Demonstrations that misread a
   * parity make one call too many or too few.
   */
  loop: { code: string; at: number; iterations: number } | null;
}

export interface ChainProblemOptions extends Partial<ChainKnobs> {
  seed: number;
  split: ArithSplit;
  count: number;
}

/** Two-digit prime moduli (as arith-tool's small kinds): every intermediate has at most two digits. */
const MODULI = [53, 59, 61, 67, 71, 73, 79, 83, 89, 97];

function modPow(base: number, exponent: number, modulus: number): number {
  let result = 1n;
  let b = BigInt(base) % BigInt(modulus);
  let e = BigInt(exponent);
  const m = BigInt(modulus);
  while (e > 0n) {
    if (e & 1n) result = (result * b) % m;
    b = (b * b) % m;
    e >>= 1n;
  }
  return Number(result);
}

/** One step of the chain on the running value: its wording, its code ("{x}" = the previous output), its value. */
interface ChainOp {
  text: string;
  code: string;
  value: number;
}

function chainOp(rng: Rng, x: number | null, previous: string): ChainOp {
  const m = rng.pick(MODULI);
  const a = x === null ? rng.int(2, 99) : null;
  const base = a === null ? 'x' : String(a);
  const input = a === null ? previous : String(a);
  const value = a ?? (x as number);
  if (rng.chance(0.5)) {
    const e = rng.int(10, 99);
    return {
      text: `x=${base}^${e} mod ${m}.`,
      code: `print(pow(${input},${e},${m}))`,
      value: modPow(value, e, m),
    };
  }
  const b = rng.int(10, 99);
  return { text: `x=${base}*${b} mod ${m}.`, code: `print(${input}*${b}%${m})`, value: (value * b) % m };
}

function checkKnobs(knobs: ChainKnobs): void {
  for (const name of ['luckyShare', 'loopShare'] as const) {
    const value = knobs[name];
    if (!(value >= 0 && value <= 1))
      throw new RangeError(`generateChainProblems: ${name} must be in [0, 1], got ${value}`);
  }
  const { minSteps, maxSteps, maxCalls } = knobs;
  if (!Number.isInteger(minSteps) || minSteps < 2 || !Number.isInteger(maxSteps) || maxSteps < minSteps)
    throw new RangeError(
      `generateChainProblems: minSteps and maxSteps must be integers with 2 <= minSteps <= maxSteps, got ` +
        `${minSteps} and ${maxSteps}`,
    );
  if (!Number.isInteger(maxCalls) || maxCalls < maxSteps)
    throw new RangeError(
      `generateChainProblems: maxCalls must be an integer >= maxSteps (${maxSteps}), got ${maxCalls}`,
    );
}

/** One problem before its id and split, or null when it needs more than maxCalls calls; drawn in a fixed order. */
function draftChain(rng: Rng, knobs: ChainKnobs) {
  const length = rng.int(knobs.minSteps, knobs.maxSteps);
  const lucky = rng.chance(knobs.luckyShare);
  const hasLoop = rng.chance(knobs.loopShare);
  const texts: string[] = [];
  const steps: string[] = [];
  let x: number | null = null;
  for (let i = 0; i < (lucky ? length - 1 : length); i++) {
    const op = chainOp(rng, x, '{x}');
    texts.push(op.text);
    steps.push(op.code);
    x = op.value;
  }
  let value = x as number;
  let loop: ChainProblem['loop'] = null;
  if (hasLoop) {
    const b = rng.int(10, 99);
    const m = rng.pick(MODULI);
    texts.push(`while x is odd, x=x*${b} mod ${m}.`);
    loop = { code: `print({x}*${b}%${m})`, at: steps.length, iterations: 0 };
    while (value % 2 === 1) {
      if (steps.length >= knobs.maxCalls) return null;
      steps.push(loop.code);
      value = (value * b) % m;
      loop.iterations++;
    }
  }
  if (lucky) {
    const c = rng.int(100, 199);
    texts.push(`x=max(x,${c}).`);
    steps.push(`print(max({x},${c}))`);
    value = Math.max(value, c);
  }
  if (steps.length > knobs.maxCalls) return null;
  return { question: `${texts.join(' ')} x=?`, answer: String(value), steps, lucky, loop };
}

/**
 * `count` distinct problems of one split, deterministic for (seed, split, count, knobs): chains of modular
 * products and powers on two-digit numbers, each step needing the printed value of the one before. The split is
 * arith-tool's (a hash of the question), so train and test never share a question.
 */
export function generateChainProblems(options: ChainProblemOptions): ChainProblem[] {
  const knobs: ChainKnobs = {
    luckyShare: options.luckyShare ?? DEFAULT_CHAIN_KNOBS.luckyShare,
    loopShare: options.loopShare ?? DEFAULT_CHAIN_KNOBS.loopShare,
    minSteps: options.minSteps ?? DEFAULT_CHAIN_KNOBS.minSteps,
    maxSteps: options.maxSteps ?? DEFAULT_CHAIN_KNOBS.maxSteps,
    maxCalls: options.maxCalls ?? DEFAULT_CHAIN_KNOBS.maxCalls,
  };
  checkKnobs(knobs);
  return drawDistinct('generateChainProblems', 'chain', options, (rng) => draftChain(rng, knobs)).map(
    (problem) => ({ ...problem, level: problem.steps.length }),
  );
}
