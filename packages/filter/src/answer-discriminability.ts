import { groupMembers } from './groups';
import { checkInteger, checkOptionNames } from './options';
import { correctnessOf } from './readout';
import { filterRegistry } from './registry';
import type { Filter, GroupPassRate } from './types';
import { applyVerdicts, defaultPositions, type Verdict } from './verdicts';

export interface AnswerDiscriminabilityOptions {
  /** Groups with fewer members than this are dropped (default 2: one answer cannot be compared). */
  readonly minGroupSize?: number;
  /** Bins of the pass-rate histogram over [0, 1] (default 10). */
  readonly histogramBins?: number;
}

export const GROUP_TOO_SMALL = 'group-too-small';
export const ALL_WRONG = 'all-wrong';
export const ALL_CORRECT = 'all-correct';

/**
 * TAO-RL's C2: per question, the pass rate rho = correct / members over the trajectories this filter receives
 * (in `toolAwareFilter`, the survivors of C1). Groups with rho = 0 or rho = 1 carry no relative signal and are
 * dropped, as are groups smaller than `minGroupSize`.
 */
export function answerDiscriminability(options: AnswerDiscriminabilityOptions = {}): Filter {
  const name = 'answer-discriminability';
  checkOptionNames(name, options, ['minGroupSize', 'histogramBins']);
  const minGroupSize = checkInteger(name, 'minGroupSize', options.minGroupSize ?? 2, 1);
  const bins = checkInteger(name, 'histogramBins', options.histogramBins ?? 10, 1);
  return {
    name,
    apply(batch, positions) {
      const at = defaultPositions(batch.length, positions);
      const verdicts: Verdict[] = new Array<Verdict>(batch.length).fill(null);
      const histogram = new Array<number>(bins).fill(0);
      const groups: GroupPassRate[] = [];
      for (const [groupId, members] of groupMembers(batch, at)) {
        let correct = 0;
        for (const i of members) if (correctnessOf(batch[i]!, at[i]!)) correct++;
        const passRate = correct / members.length;
        histogram[Math.min(Math.floor(passRate * bins), bins - 1)]! += 1;
        const reason =
          members.length < minGroupSize
            ? GROUP_TOO_SMALL
            : correct === 0
              ? ALL_WRONG
              : correct === members.length
                ? ALL_CORRECT
                : null;
        groups.push({ groupId, size: members.length, correct, passRate, outcome: reason ?? 'kept' });
        if (reason !== null) for (const i of members) verdicts[i] = { action: 'drop', reason };
      }
      return applyVerdicts(name, batch, at, verdicts, { histogram, groups });
    },
  };
}

filterRegistry.registerBuiltIn('answer-discriminability', answerDiscriminability);
