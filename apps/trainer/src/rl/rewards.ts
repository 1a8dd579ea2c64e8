import type { Trajectory } from '@taorl/data';
import type { CodeTask } from '@taorl/eval';

/** A problem as the RL loop sees it: a rendered prompt and the gold answer. */
export interface Problem {
  /** Stable id; the group id of every trajectory sampled for it. */
  id: string;
  promptIds: Int32Array;
  /** The gold answer; for a code problem, a description of its tests (the tests are in `code`). */
  gold: string;
  /** A code problem: its program is judged against these tests (the code-correctness reward). */
  code?: CodeTask;
  /** Embedded task only: the problem's level and the tool calls its solution needs (strategy and level reports). */
  level?: number;
  requiredCalls?: number;
}

/**
 * The text the answer is graded on: the final assistant segment, after the last observation. A \boxed{} that
 * appears only in code or tool output must not count (ALGORITHMS.md section 2).
 */
export function finalAssistantText(trajectory: Trajectory, decode: (ids: Int32Array) => string): string {
  const last = trajectory.toolCalls.at(-1);
  return last === undefined ? trajectory.text : decode(trajectory.responseIds.subarray(last.endToken));
}
