import type { RlPrompt } from '../datasets/formats';
import { ARITH_KINDS, type ArithDraft, type ArithKind, type ArithLevel } from './kinds';
import { fnv1a, Rng } from './rng';

export type ArithSplit = 'train' | 'test';

/** One problem of the arith-tool task. */
export interface ArithProblem extends ArithDraft {
  /** "arith-<split>-<64-bit hash of the question>": stable, unique in practice, usable as a groupId. */
  id: string;
  split: ArithSplit;
}

export interface ArithProblemOptions {
  seed: number;
  split: ArithSplit;
  count: number;
  /**
   * Relative weight of each level, over the classic kinds (every kind but powmod-twice). Default
   * { 1: 0.15, 2: 0.3, 3: 0.35, 4: 0.2 }.
   */
  levels?: Partial<Record<ArithLevel, number>>;
  /** Relative weight of each kind, instead of levels (kinds left out are not drawn), e.g. a mix's `kinds`. */
  kinds?: Partial<Record<ArithKind, number>>;
}

export const DEFAULT_LEVEL_WEIGHTS: Readonly<Record<ArithLevel, number>> = {
  1: 0.15,
  2: 0.3,
  3: 0.35,
  4: 0.2,
};

/** One question in TEST_BUCKETS belongs to the test split, decided by a hash of its text. */
const TEST_BUCKETS = 10;

/**
 * The split a question belongs to. A pure function of the text, so train and test never share a question, for
 * any seeds and counts.
 */
export function arithSplitOf(question: string): ArithSplit {
  return fnv1a(question) % TEST_BUCKETS === 0 ? 'test' : 'train';
}

function hex(hash: number): string {
  return hash.toString(16).padStart(8, '0');
}

/**
 * `count` distinct drafts of one split, in the order `draw` makes them from the seed's Rng, each with its id
 * "<prefix>-<split>-<64-bit hash of the question>". A draft that hashes to the other split, repeats an earlier
 * question or is null is skipped; after 1000 + 200 * count drafts this throws a RangeError naming `generator`,
 * with `advice` after it.
 */
export function drawDistinct<D extends { readonly question: string }>(
  generator: string,
  prefix: string,
  options: Pick<ArithProblemOptions, 'seed' | 'split' | 'count'>,
  draw: (rng: Rng) => D | null,
  advice = '',
): Array<D & { id: string; split: ArithSplit }> {
  const { seed, split, count } = options;
  if (!Number.isInteger(count) || count < 0) {
    throw new RangeError(`${generator}: count must be a non-negative integer, got ${count}`);
  }
  const rng = new Rng(seed);
  const seen = new Set<string>();
  const problems: Array<D & { id: string; split: ArithSplit }> = [];
  const maxDrafts = 1000 + count * 200;
  for (let drafts = 0; problems.length < count; drafts++) {
    if (drafts >= maxDrafts) {
      throw new RangeError(
        `${generator}: only ${problems.length} distinct ${split} problems after ${drafts} drafts${advice}`,
      );
    }
    const draft = draw(rng);
    if (draft === null || seen.has(draft.question) || arithSplitOf(draft.question) !== split) continue;
    seen.add(draft.question);
    const id = `${prefix}-${split}-${hex(fnv1a(draft.question))}${hex(fnv1a(draft.question, 0x01234567))}`;
    problems.push({ ...draft, id, split });
  }
  return problems;
}

function pickLevel(rng: Rng, weights: Record<ArithLevel, number>): ArithLevel {
  const levels = ([1, 2, 3, 4] as const).filter((level) => weights[level] > 0);
  const total = levels.reduce((sum, level) => sum + weights[level], 0);
  let draw = rng.next() * total;
  for (const level of levels) {
    draw -= weights[level];
    if (draw < 0) return level;
  }
  return levels[levels.length - 1] as ArithLevel;
}

/** The kinds drawn by level; later kinds are drawn only by name, so level-weighted problem sets never change. */
const CLASSIC_KINDS: readonly ArithKind[] = [
  'add',
  'small-product',
  'product',
  'mulmod',
  'long-product',
  'powmod',
  'power-sum',
  'digit-sum',
  'powmod-chain',
];

const KINDS_BY_LEVEL = new Map<ArithLevel, ArithKind[]>();
for (const kind of CLASSIC_KINDS) {
  const { level } = ARITH_KINDS[kind];
  KINDS_BY_LEVEL.set(level, [...(KINDS_BY_LEVEL.get(level) ?? []), kind]);
}

/** A kind drawn by weight (weights validated by the caller). */
function pickKind(rng: Rng, weights: ReadonlyArray<readonly [ArithKind, number]>): ArithKind {
  const total = weights.reduce((sum, [, weight]) => sum + weight, 0);
  let draw = rng.next() * total;
  for (const [kind, weight] of weights) {
    draw -= weight;
    if (draw < 0) return kind;
  }
  return weights[weights.length - 1]![0];
}

function kindWeights(kinds: Partial<Record<ArithKind, number>>): Array<readonly [ArithKind, number]> {
  const weights: Array<readonly [ArithKind, number]> = [];
  for (const [kind, weight] of Object.entries(kinds)) {
    if (!(kind in ARITH_KINDS)) {
      throw new RangeError(
        `generateArithProblems: unknown kind "${kind}" in kinds; known: ${Object.keys(ARITH_KINDS).join(', ')}`,
      );
    }
    if (typeof weight !== 'number' || !(weight >= 0) || !Number.isFinite(weight)) {
      throw new RangeError(
        `generateArithProblems: kinds[${kind}] must be a finite number >= 0, got ${weight}`,
      );
    }
    if (weight > 0) weights.push([kind as ArithKind, weight]);
  }
  if (weights.length === 0) throw new RangeError('generateArithProblems: every kind weight is 0');
  return weights;
}

/**
 * `count` distinct problems of one split, deterministic for (seed, split, count, levels). Drafts that hash to
 * the other split or repeat an earlier question are skipped; this throws when the levels asked for cannot yield
 * that many distinct problems.
 */
export function generateArithProblems(options: ArithProblemOptions): ArithProblem[] {
  if (options.kinds !== undefined && options.levels !== undefined) {
    throw new RangeError('generateArithProblems: give levels or kinds, not both');
  }
  const byKind = options.kinds === undefined ? null : kindWeights(options.kinds);
  const weights = { ...DEFAULT_LEVEL_WEIGHTS, ...options.levels };
  for (const [level, weight] of Object.entries(weights)) {
    if (!(weight >= 0) || !Number.isFinite(weight)) {
      throw new RangeError(
        `generateArithProblems: levels[${level}] must be a finite number >= 0, got ${weight}`,
      );
    }
  }
  if (Object.values(weights).every((weight) => weight === 0)) {
    throw new RangeError('generateArithProblems: every level weight is 0');
  }
  return drawDistinct(
    'generateArithProblems',
    'arith',
    options,
    (rng) => {
      const kind =
        byKind === null ? rng.pick(KINDS_BY_LEVEL.get(pickLevel(rng, weights)) ?? []) : pickKind(rng, byKind);
      return ARITH_KINDS[kind].draft(rng);
    },
    '; ask for fewer or weight the higher levels more',
  );
}

/** The text of the user message: the question after "Q: ". */
export function arithUserMessage(problem: Pick<ArithProblem, 'question'>): string {
  return `Q: ${problem.question}`;
}

/** The problem as a verl-format RL prompt, so the RL loop reads it like any dataset record. */
export function arithRlPrompt(problem: ArithProblem): RlPrompt {
  return {
    dataSource: 'arith-tool',
    prompt: [{ role: 'user', content: arithUserMessage(problem) }],
    ability: 'arithmetic',
    groundTruth: problem.answer,
    extraInfo: { id: problem.id, kind: problem.kind, level: problem.level, split: problem.split },
  };
}
