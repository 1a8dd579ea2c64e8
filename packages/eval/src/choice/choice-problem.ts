import { hashSeed, seededRandom } from '../seeded-random';

/** A multiple-choice problem as its source states it: the right option and the wrong ones, unordered. */
export interface ChoiceRecord {
  readonly id: string;
  readonly question: string;
  readonly correct: string;
  readonly incorrect: readonly string[];
}

/** A multiple-choice problem as shown to a model: options in letter order and the gold letter. */
export interface ChoiceProblem {
  readonly id: string;
  readonly question: string;
  readonly options: readonly string[];
  readonly goldLetter: string;
  readonly letters: string;
}

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/**
 * Orders a problem's options by a permutation drawn from `seed` and the problem's id (FNV-1a then mulberry32, a
 * Fisher-Yates shuffle), so a problem gets the same order whatever else is in the set and in whatever order it
 * is loaded. GPQA's release lists the correct answer first; evaluations shuffle it away (simple-evals draws one
 * permutation per problem from a seeded generator; DECISION: ours is keyed by the id, not by the position).
 */
export function shuffleChoices(record: ChoiceRecord, seed = 0): ChoiceProblem {
  const all = [record.correct, ...record.incorrect];
  if (all.length < 2 || all.length > LETTERS.length) {
    throw new RangeError(`problem ${record.id}: needs 2-26 options, has ${all.length}`);
  }
  const order = all.map((_, index) => index);
  const random = seededRandom(hashSeed(`${seed}:${record.id}`));
  for (let index = order.length - 1; index > 0; index--) {
    const other = Math.floor(random() * (index + 1));
    [order[index], order[other]] = [order[other]!, order[index]!];
  }
  const letters = LETTERS.slice(0, all.length);
  return {
    id: record.id,
    question: record.question,
    options: order.map((index) => all[index]!),
    goldLetter: letters[order.indexOf(0)]!,
    letters,
  };
}

/**
 * The question with its lettered options and the instruction to end with "Answer: <letter>" (the form every
 * extractor of @taorl/eval reads first after a box).
 */
export function formatChoicePrompt(problem: ChoiceProblem): string {
  const options = problem.options.map((option, index) => `${problem.letters[index]}) ${option}`);
  const range = `${problem.letters[0]}-${problem.letters.at(-1)}`;
  return `${problem.question.trim()}\n\n${options.join('\n')}\n\nThink it through, then end with a line "Answer: X" where X is one letter ${range}.`;
}
