import type { ArithKind, ArithLevel } from './kinds';

/** How the demonstrations of a mix solve their problems (see ArithTraceOptions for each share). */
export interface ArithStrategyShares {
  readonly directShare: ArithShare;
  readonly mistakeShare: ArithShare;
  readonly giveUpShare: ArithShare;
  readonly failedAfterPrintShare: ArithShare;
  readonly stopEarlyShare: ArithShare;
}

/** A share for every problem, or one per level (levels left out get 0). */
export type ArithShare = number | Partial<Record<ArithLevel, number>>;

/** The share that applies to a problem of `level`. */
export function shareAt(share: ArithShare, level: ArithLevel): number {
  return typeof share === 'number' ? share : (share[level] ?? 0);
}

/** A task design: which problems are drawn, and which strategy mistakes the SFT demonstrations carry. */
export interface ArithMix {
  /** Problem weights by kind, or null to draw by level (generateArithProblems' default levels). */
  readonly kinds: Partial<Record<ArithKind, number>> | null;
  readonly levels: Partial<Record<ArithLevel, number>> | null;
  readonly strategies: ArithStrategyShares;
}

export type ArithMixName = 'classic' | 'strategy' | 'pretrain';

/**
 * - `classic`: every kind by level, answers up to 8 digits; demonstrations are mostly right (20% answer in the
 *   head, a quarter of the tool demonstrations recover from a failed first call). Copying digits is what a tiny
 *   model finds hard, and more SFT teaches it faster than RL.
 * - `strategy`: short questions and answers (two-digit numbers, so copying is not the bottleneck) and demonstrations that carry
 *   the strategy mistakes imitation keeps reproducing: answering in the head problems that need code, giving up
 *   after a failed call, stopping after the first of two needed calls. SFT plateaus at what that mix can reach;
 *   reward can find better tool use. Built so that TAO-RL's mechanisms have something to act on
 *   (docs/explanation/arith-tool-task.md, The strategy mix).
 * - `pretrain`: what the demo's base model is pretrained on (docs/explanation/arith-tool-task.md, The pretraining mix): other
 *   operations and wordings than the strategy mix's kinds, every demonstration calling the tool for each step and
 *   right. It teaches the format and copying numbers, which a tiny model learns late and at a seed-dependent
 *   step, and no strategy for the demo's problems.
 */
export const ARITH_MIXES: Readonly<Record<ArithMixName, ArithMix>> = {
  classic: {
    kinds: null,
    levels: null,
    strategies: {
      directShare: 0.2,
      mistakeShare: 0.25,
      giveUpShare: 0,
      failedAfterPrintShare: 0,
      stopEarlyShare: 0,
    },
  },
  strategy: {
    kinds: { add: 0.25, 'small-mulmod': 0.25, 'small-powmod': 0.2, 'powmod-twice': 0.3 },
    levels: null,
    strategies: {
      directShare: 0.35,
      mistakeShare: { 1: 0.5, 2: 0.5, 3: 0.5, 4: 0.3 },
      giveUpShare: { 1: 0.8, 2: 0.8, 3: 0.8, 4: 0.5 },
      // One-call give-ups read the answer from code that printed it and then failed: right with every call failed,
      // what C1 removes. The tiny model cannot add two-digit numbers in its head (0 of 54 direct answers to
      // level 1 right after SFT, measured), so answers from the head are never right.
      failedAfterPrintShare: { 1: 1, 2: 1, 3: 1 },
      stopEarlyShare: 0.5,
    },
  },
  pretrain: {
    kinds: { 'floor-div': 1, xor: 1, largest: 1, 'diff-mod': 1, 'xor-then-add': 1, 'div-then-mod': 1 },
    levels: null,
    strategies: {
      directShare: 0,
      mistakeShare: 0,
      giveUpShare: 0,
      failedAfterPrintShare: 0,
      stopEarlyShare: 0,
    },
  },
};

/** The mix of a name, or an error listing the known ones. */
export function arithMix(name: string): ArithMix {
  const mix = (ARITH_MIXES as Record<string, ArithMix | undefined>)[name];
  if (mix === undefined) {
    throw new RangeError(`unknown arith-tool mix "${name}"; known: ${Object.keys(ARITH_MIXES).join(', ')}`);
  }
  return mix;
}
