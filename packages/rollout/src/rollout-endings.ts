/**
 * Why a trajectory ended, one named status each:
 * - 'eos': the policy ended its turn (a stop id) with no tool call pending;
 * - 'no_tool_call': generation paused on a tool stop string the tool environment found no call in, and the
 *   rollout ends such a trajectory (`unparseableCall: 'end'`);
 * - 'length': the response budget or the model's context ran out (`truncated` is true);
 * - 'max_turns': a call past `maxTurns`;
 * - 'wall_time': the trajectory's `maxWallMs` ran out;
 * - 'repeated_call': the same code called `maxRepeatedCalls` times in a row.
 */
export type RolloutEnding = 'eos' | 'no_tool_call' | 'length' | 'max_turns' | 'wall_time' | 'repeated_call';

export const ROLLOUT_ENDINGS: readonly RolloutEnding[] = [
  'eos',
  'no_tool_call',
  'length',
  'max_turns',
  'wall_time',
  'repeated_call',
];

/**
 * What the rollout does when generation pauses on a tool stop string but the segment holds no call the tool
 * environment can parse (malformed JSON in a Hermes call, an unclosed fence): 'observe' answers with the
 * environment's parse-error observation (`ToolEnvironment.parseError`) and goes on, 'end' ends the trajectory
 * ('no_tool_call'), 'text' keeps the text as plain assistant text and goes on generating.
 */
export type UnparseableCallPolicy = 'observe' | 'end' | 'text';

/** How many trajectories ended each way. */
export function countEndings(endings: readonly RolloutEnding[]): Record<RolloutEnding, number> {
  const counts = Object.fromEntries(ROLLOUT_ENDINGS.map((ending) => [ending, 0])) as Record<
    RolloutEnding,
    number
  >;
  for (const ending of endings) counts[ending]++;
  return counts;
}
