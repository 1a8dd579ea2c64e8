/**
 * Outcome of one tool execution, spelled as @taorl/sandbox's ExecStatus (test/tool-call-status.test.ts keeps the
 * two equal) but declared here, so this package needs no sandbox to load. Only `ok` counts as a successful
 * execution for TAO-RL's execution-validity filter. `sandbox_error` is the infrastructure status: the sandbox could
 * not run the call (server unreachable, HTTP 5xx, a transport timeout, a crashed worker, a refused request), an
 * outage, never the program's failure; @taorl/filter never counts it as the model's failed call.
 */
export type ToolCallStatus =
  | 'ok'
  | 'error'
  | 'timeout'
  | 'memory'
  | 'output_limit'
  | 'killed'
  | 'sandbox_error';

/** Every status, in @taorl/sandbox's order. */
export const TOOL_CALL_STATUSES: readonly ToolCallStatus[] = [
  'ok',
  'error',
  'timeout',
  'memory',
  'output_limit',
  'killed',
  'sandbox_error',
];

/**
 * One tool call inside a response. `[startToken, endToken)` are the response-token indices of the observation
 * the environment inserted (lossMask 0 there); the policy tokens that wrote `code` come before `startToken`.
 */
export interface ToolCall {
  status: ToolCallStatus;
  startToken: number;
  endToken: number;
  /** The code the policy wrote, as parsed by the tool format. */
  code: string;
  /** The observation text exactly as inserted (after truncation and rendering). */
  output: string;
}

/**
 * One rollout of the policy on one prompt, in columnar form: every per-token array has one entry per response
 * token. `lossMask` is 1 on tokens the policy generated and 0 on tool output or other inserted text.
 * `oldLogProbs` and `entropies` are the rollout policy's values (0 where lossMask is 0).
 */
export interface Trajectory {
  /** Trajectories sampled for the same question share a groupId (GRPO's group). */
  groupId: string;
  promptIds: Int32Array;
  responseIds: Int32Array;
  lossMask: Uint8Array;
  oldLogProbs: Float32Array;
  entropies: Float32Array;
  toolCalls: ToolCall[];
  reward: number;
  correct: boolean;
  /** True when the response hit the length budget before a final answer or EOS. */
  truncated: boolean;
  /** The decoded response text (prompt excluded), for grading and reports. */
  text: string;
}

/** The trajectories sampled for one question. */
export interface Group<T extends { groupId: string } = Trajectory> {
  groupId: string;
  trajectories: T[];
}

/** Groups trajectories by groupId, keeping the order in which each group first appears and the order inside it. */
export function groupTrajectories<T extends { groupId: string }>(trajectories: Iterable<T>): Group<T>[] {
  const groups = new Map<string, Group<T>>();
  for (const trajectory of trajectories) {
    let group = groups.get(trajectory.groupId);
    if (!group) {
      group = { groupId: trajectory.groupId, trajectories: [] };
      groups.set(trajectory.groupId, group);
    }
    group.trajectories.push(trajectory);
  }
  return [...groups.values()];
}
