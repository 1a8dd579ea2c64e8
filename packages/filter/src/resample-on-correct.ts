import { groupMembers } from './groups';
import { checkInteger, checkOptionNames } from './options';
import { correctnessOf, toolCallsOf } from './readout';
import { filterRegistry } from './registry';
import type { Filter, FilterableTrajectory } from './types';
import { applyVerdicts, defaultPositions, type Verdict } from './verdicts';

export interface ResampleOnCorrectOptions {
  /** Trajectories kept per group (rStar2-Agent's down_sample_to_n); groups are rolled out larger. Required. */
  readonly size?: number;
  /** Wrong trajectories kept at least, when the group has them (min_zero_reward_trace_num). Default 2. */
  readonly minWrong?: number;
  /** Right trajectories kept at least, when the group has them (min_non_zero_reward_trace_num). Default 2. */
  readonly minCorrect?: number;
  /** Add the tool-error penalty (roc_error_ratio). Default true. */
  readonly errorRatio?: boolean;
  /** Add the answer-format penalty (roc_answer_format); needs `answerCount` and `turnCount`. Default true. */
  readonly answerFormat?: boolean;
}

/** Reasons of the trajectories resample-on-correct leaves out of a group. */
export const SURPLUS_CORRECT = 'surplus-correct';
export const SURPLUS_WRONG = 'surplus-wrong';

/**
 * Share of failed tool calls (status other than `ok`); 0.5 without any call. rStar2-Agent counts a tool response
 * containing "error" as failed; taorl reads the sandbox's status, which that substring stands for.
 */
export function toolErrorPenalty(t: FilterableTrajectory, position: number): number {
  const calls = toolCallsOf(t, position);
  if (calls.length === 0) return 0.5;
  return calls.filter((call) => call.status !== 'ok').length / calls.length;
}

/** 1 without a final answer, else min((answers - 1) / turns, 1): repeated answers cost, one answer is free. */
export function answerFormatPenalty(t: FilterableTrajectory, position: number): number {
  const count = (field: 'answerCount' | 'turnCount'): number => {
    const value = t[field];
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
      throw new Error(
        `resample-on-correct: trajectory ${position}: field '${field}' must be an integer >= 0 for the answer-format ` +
          `penalty (set it with voidTurns, or pass answerFormat: false), got ${String(value)}`,
      );
    }
    return value;
  };
  const [answers, turns] = [count('answerCount'), count('turnCount')];
  if (answers === 0 || turns === 0) return 1;
  return Math.min((answers - 1) / turns, 1);
}

/** Python's round(): halves go to the even neighbour, as the source's counts are rounded. */
function roundHalfEven(x: number): number {
  const floor = Math.floor(x);
  const rest = x - floor;
  if (rest !== 0.5) return rest < 0.5 ? floor : floor + 1;
  return floor % 2 === 0 ? floor : floor + 1;
}

/**
 * rStar2-Agent's GRPO-RoC down-sampler (microsoft/rStar@73b21b5 rstar2_agent/down_sample/roc.py,
 * resample_of_correct): each group, rolled out larger than it trains, is cut to `size` keeping the group's share of
 * right and wrong answers: n_wrong = round(wrong x size / n), n_right = round(right x size / n) (Python's rounding),
 * raised to minWrong / minCorrect where the group has that many; within each side the trajectories with the
 * smallest penalty (tool-error share + answer-format penalty) come first, ties in batch order (Python's stable
 * sort). The source sorts the wrong ones by penalty too, though the paper samples them uniformly; taorl follows the
 * code. A group of exactly `size` is kept; a smaller one too (DECISION: the source drops it, which in its pipeline
 * never happens; here a filter before this one can shrink a group). The rest are `resample`d, reason
 * `surplus-correct` or `surplus-wrong`.
 */
export function resampleOnCorrect(options: ResampleOnCorrectOptions = {}): Filter {
  const name = 'resample-on-correct';
  checkOptionNames(name, options, ['size', 'minWrong', 'minCorrect', 'errorRatio', 'answerFormat']);
  if (options.size === undefined) {
    throw new Error(`${name}: option 'size' (trajectories kept per group) is required`);
  }
  const size = checkInteger(name, 'size', options.size, 1);
  const minWrong = checkInteger(name, 'minWrong', options.minWrong ?? 2, 0);
  const minCorrect = checkInteger(name, 'minCorrect', options.minCorrect ?? 2, 0);
  if (minWrong + minCorrect > size) {
    throw new Error(
      `${name}: options 'minWrong' + 'minCorrect' (${minWrong} + ${minCorrect}) must not exceed 'size' (${size})`,
    );
  }
  const flag = (field: 'errorRatio' | 'answerFormat'): boolean => {
    const value = options[field] ?? true;
    if (typeof value !== 'boolean') {
      throw new Error(`${name}: option '${field}' must be a boolean, got ${JSON.stringify(value)}`);
    }
    return value;
  };
  const [errorRatio, answerFormat] = [flag('errorRatio'), flag('answerFormat')];
  const penaltyOf = (t: FilterableTrajectory, position: number) =>
    (errorRatio ? toolErrorPenalty(t, position) : 0) + (answerFormat ? answerFormatPenalty(t, position) : 0);

  return {
    name,
    apply(batch, positions) {
      const at = defaultPositions(batch.length, positions);
      const verdicts: Verdict[] = new Array<Verdict>(batch.length).fill(null);
      for (const members of groupMembers(batch, at).values()) {
        if (members.length <= size) continue;
        const ranked = (correct: boolean) =>
          members
            .filter((i) => correctnessOf(batch[i]!, at[i]!) === correct)
            .map((i) => ({ i, penalty: penaltyOf(batch[i]!, at[i]!) }))
            .sort((a, b) => a.penalty - b.penalty)
            .map(({ i }) => i);
        const [right, wrong] = [ranked(true), ranked(false)];
        let nWrong = roundHalfEven((wrong.length * size) / members.length);
        let nRight = roundHalfEven((right.length * size) / members.length);
        if (nWrong <= Math.min(minWrong, wrong.length)) {
          nWrong = Math.min(minWrong, wrong.length);
          nRight = size - nWrong;
        }
        if (nRight <= Math.min(minCorrect, right.length)) {
          nRight = Math.min(minCorrect, right.length);
          nWrong = size - nRight;
        }
        if (nRight + nWrong !== size) {
          // Two halves rounded the same way (2 right, 2 wrong to 3): the source's assertion fails here. DECISION:
          // the right side takes the difference, as far as the group has right answers.
          nRight = Math.max(0, Math.min(size - nWrong, right.length));
          nWrong = size - nRight;
        }
        if (Math.min(nRight, right.length) + Math.min(nWrong, wrong.length) !== size) {
          throw new Error(
            `${name}: group ${String(batch[members[0]!]!.groupId)} would keep ${nRight} right and ${nWrong} wrong of ` +
              `${right.length} and ${wrong.length}, not ${size}`,
          );
        }
        for (const i of right.slice(nRight)) verdicts[i] = { action: 'resample', reason: SURPLUS_CORRECT };
        for (const i of wrong.slice(nWrong)) verdicts[i] = { action: 'resample', reason: SURPLUS_WRONG };
      }
      return applyVerdicts(name, batch, at, verdicts);
    },
  };
}

filterRegistry.registerBuiltIn('resample-on-correct', resampleOnCorrect);
