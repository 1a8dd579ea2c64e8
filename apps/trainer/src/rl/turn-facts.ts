import type { Trajectory } from '@taorl/data';
import { type TurnFacts, voidTurns } from '@taorl/filter';

/**
 * The assistant turns of a response as text: the generated spans between the tool observations (which the
 * environment inserted, lossMask 0). A turn after the last observation counts only if something was generated.
 */
export function assistantTurns(trajectory: Trajectory, decode: (ids: Int32Array) => string): string[] {
  const turns: string[] = [];
  let start = 0;
  for (const call of trajectory.toolCalls) {
    turns.push(decode(trajectory.responseIds.subarray(start, call.startToken)));
    start = call.endToken;
  }
  if (start < trajectory.responseIds.length) turns.push(decode(trajectory.responseIds.subarray(start)));
  return turns;
}

/**
 * The trajectory with SimpleTIR's void-turn flag and the answer and turn counts (@taorl/filter's voidTurns), so
 * the `void-turn` filter and resample-on-correct's format penalty act on what the rollout produced. A complete
 * code block is what the run's tool format parses (`parse`), the call the rollout would run.
 */
export function withTurnFacts(
  trajectory: Trajectory,
  decode: (ids: Int32Array) => string,
  parse: (turn: string) => unknown,
): Trajectory & TurnFacts {
  const facts = voidTurns(assistantTurns(trajectory, decode), {
    hasCodeBlock: (turn) => parse(turn) !== null,
  });
  return { ...trajectory, ...facts };
}
