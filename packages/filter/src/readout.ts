import type { FilterableTrajectory } from './types';

/** The reward of a trajectory; a boolean `correct` stands in as 1 / 0 when `reward` is absent. */
export function rewardOf(t: FilterableTrajectory, position: number): number {
  const { reward } = t;
  if (reward === undefined) {
    if (typeof t.correct === 'boolean') return t.correct ? 1 : 0;
    throw new Error(`trajectory ${position}: needs a numeric 'reward' or a boolean 'correct', has neither`);
  }
  if (typeof reward !== 'number' || !Number.isFinite(reward)) {
    throw new Error(`trajectory ${position}: field 'reward' must be a finite number, got ${String(reward)}`);
  }
  return reward;
}

/** The grader's verdict; without one, a positive reward counts as correct. A NaN reward is an error either way. */
export function correctnessOf(t: FilterableTrajectory, position: number): boolean {
  const { correct } = t;
  if (correct !== undefined && typeof correct !== 'boolean') {
    throw new Error(`trajectory ${position}: field 'correct' must be a boolean, got ${String(correct)}`);
  }
  // Validate a present reward even when the verdict decides: a NaN must not pass unnoticed.
  if (t.reward !== undefined) rewardOf(t, position);
  return correct ?? rewardOf(t, position) > 0;
}

export function toolCallsOf(t: FilterableTrajectory, position: number): FilterableTrajectory['toolCalls'] {
  if (!Array.isArray(t.toolCalls)) {
    throw new Error(`trajectory ${position}: field 'toolCalls' must be an array`);
  }
  return t.toolCalls;
}
