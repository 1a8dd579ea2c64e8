import type { Trajectory } from '@taorl/data';

/**
 * The text the answer is graded on: the final assistant segment, after the last observation. A \boxed{} that
 * appears only in code or tool output must not count (TAO-RL grades the final answer, not the tool output).
 */
export function finalAssistantText(trajectory: Trajectory, decode: (ids: Int32Array) => string): string {
  const last = trajectory.toolCalls.at(-1);
  return last === undefined ? trajectory.text : decode(trajectory.responseIds.subarray(last.endToken));
}
