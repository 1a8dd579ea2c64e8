import { groupMembers } from './groups';
import { checkChoice, checkInteger, checkOptionNames } from './options';
import { correctnessOf } from './readout';
import { filterRegistry } from './registry';
import {
  answerFormatPenalty,
  TOOL_ERROR_SIGNALS,
  type ToolErrorSignal,
  toolErrorPenalty,
} from './roc-penalties';
import type { Filter, FilterableTrajectory } from './types';
import { applyVerdicts, defaultPositions, type Verdict } from './verdicts';

export interface ResampleOnCorrectOptions {
  /** Trajectories kept per group (rStar2-Agent's down_sample_to_n); groups are rolled out larger. Required. */
  readonly size?: number;
  /**
   * Wrong trajectories kept at least, when the group has them (min_zero_reward_trace_num). Default 2 (the published
   * training script); -1, the source's config default, sets no minimum.
   */
  readonly minWrong?: number;
  /** Right trajectories kept at least, when the group has them (min_non_zero_reward_trace_num). Default 2; -1: none. */
  readonly minCorrect?: number;
  /** Add the tool-error penalty (roc_error_ratio). Default true. */
  readonly errorRatio?: boolean;
  /** What marks a failed call: `output` (default, the source's: its text says "error") or `status` (the sandbox's). */
  readonly errorSignal?: ToolErrorSignal;
  /** Add the answer-format penalty (roc_answer_format); reads `answerCount`, `answerOpenings`, `laterTurns`. Default true. */
  readonly answerFormat?: boolean;
  /** Trainer replicas: the kept trajectories are cut to a multiple of it, the first in batch order kept. Default 1. */
  readonly worldSize?: number;
  /** A group with fewer than `size` members: `drop` (default, as the source) or `keep`. */
  readonly smallGroups?: 'drop' | 'keep';
}

/** Reasons of the trajectories resample-on-correct leaves out of a group. */
export const SURPLUS_CORRECT = 'surplus-correct';
export const SURPLUS_WRONG = 'surplus-wrong';
/** Kept by the group but past the last multiple of `worldSize` in the batch. */
export const WORLD_SIZE_REMAINDER = 'world-size-remainder';
/** A group with fewer members than `size`, dropped (smallGroups `drop`). */
export const GROUP_BELOW_SIZE = 'group-below-size';

/** Python's round(): halves go to the even neighbour, as the source's counts are rounded. */
function roundHalfEven(x: number): number {
  const floor = Math.floor(x);
  const rest = x - floor;
  if (rest !== 0.5) return rest < 0.5 ? floor : floor + 1;
  return floor % 2 === 0 ? floor : floor + 1;
}

/**
 * rStar2-Agent's GRPO-RoC down-sampler (microsoft/rStar@5e95b19, its main today, rstar2_agent/down_sample/roc.py
 * resample_of_correct, and utils.py filter_by_mask): each group, rolled out larger than it trains, is cut to
 * `size` keeping the group's share of right and wrong answers: n_wrong = round(wrong x size / n), n_right =
 * round(right x size / n) (Python's rounding), raised to minWrong / minCorrect where the group has that many. The
 * right trajectories with the smallest penalty (tool-error share + answer-format penalty) are kept, ties in batch
 * order (Python's stable sort); the wrong ones in batch order, unsorted (PR #50 removed their sort). A group of
 * exactly `size` is kept, a smaller one dropped (reason `group-below-size`; smallGroups `keep` keeps it). The rest
 * are `resample`d (`surplus-correct`, `surplus-wrong`), then the kept set is cut to a multiple of `worldSize`
 * (`world-size-remainder`); a world size that leaves nothing is an error.
 */
export function resampleOnCorrect(options: ResampleOnCorrectOptions = {}): Filter {
  const name = 'resample-on-correct';
  checkOptionNames(name, options, [
    'size',
    'minWrong',
    'minCorrect',
    'errorRatio',
    'errorSignal',
    'answerFormat',
    'worldSize',
    'smallGroups',
  ]);
  if (options.size === undefined) {
    throw new Error(`${name}: option 'size' (trajectories kept per group) is required`);
  }
  const size = checkInteger(name, 'size', options.size, 1);
  const minWrong = checkInteger(name, 'minWrong', options.minWrong ?? 2, -1);
  const minCorrect = checkInteger(name, 'minCorrect', options.minCorrect ?? 2, -1);
  if (minWrong + minCorrect > size) {
    throw new Error(
      `${name}: options 'minWrong' + 'minCorrect' (${minWrong} + ${minCorrect}) must not exceed 'size' (${size})`,
    );
  }
  const worldSize = checkInteger(name, 'worldSize', options.worldSize ?? 1, 1);
  const smallGroups = checkChoice(name, 'smallGroups', options.smallGroups ?? 'drop', [
    'drop',
    'keep',
  ] as const);
  const errorSignal = checkChoice(name, 'errorSignal', options.errorSignal ?? 'output', TOOL_ERROR_SIGNALS);
  const flag = (field: 'errorRatio' | 'answerFormat'): boolean => {
    const value = options[field] ?? true;
    if (typeof value !== 'boolean') {
      throw new Error(`${name}: option '${field}' must be a boolean, got ${JSON.stringify(value)}`);
    }
    return value;
  };
  const [errorRatio, answerFormat] = [flag('errorRatio'), flag('answerFormat')];
  const penaltyOf = (t: FilterableTrajectory, position: number) =>
    (errorRatio ? toolErrorPenalty(t, position, errorSignal) : 0) +
    (answerFormat ? answerFormatPenalty(t, position) : 0);

  return {
    name,
    apply(batch, positions) {
      const at = defaultPositions(batch.length, positions);
      const verdicts: Verdict[] = new Array<Verdict>(batch.length).fill(null);
      for (const members of groupMembers(batch, at).values()) {
        if (members.length < size && smallGroups === 'drop') {
          for (const i of members) verdicts[i] = { action: 'drop', reason: GROUP_BELOW_SIZE };
        }
        if (members.length <= size) continue;
        const wrong = members.filter((i) => !correctnessOf(batch[i]!, at[i]!));
        const right = members
          .filter((i) => correctnessOf(batch[i]!, at[i]!))
          .map((i) => ({ i, penalty: penaltyOf(batch[i]!, at[i]!) }))
          .sort((a, b) => a.penalty - b.penalty)
          .map(({ i }) => i);
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
      cutToWorldSize(name, verdicts, worldSize);
      return applyVerdicts(name, batch, at, verdicts);
    },
  };
}

/** The source's filter_by_mask: the kept trajectories past the last multiple of `worldSize` leave the batch. */
function cutToWorldSize(name: string, verdicts: Verdict[], worldSize: number): void {
  const kept = verdicts.flatMap((verdict, i) => (verdict === null ? [i] : []));
  const keep = Math.floor(kept.length / worldSize) * worldSize;
  if (keep === 0 && kept.length > 0) {
    throw new Error(
      `${name}: option 'worldSize' (${worldSize}) leaves no trajectory of the ${kept.length} kept: set it to at ` +
        'most the trajectories a batch keeps',
    );
  }
  for (const i of kept.slice(keep)) verdicts[i] = { action: 'resample', reason: WORLD_SIZE_REMAINDER };
}

filterRegistry.registerBuiltIn('resample-on-correct', resampleOnCorrect);
