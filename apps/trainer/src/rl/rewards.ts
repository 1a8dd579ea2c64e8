/** A problem as the RL loop sees it: a rendered prompt and the gold answer. */
export interface Problem {
  /** Stable id; the group id of every trajectory sampled for it. */
  id: string;
  promptIds: Int32Array;
  gold: string;
  /** Embedded task only: the problem's level and the tool calls its solution needs (strategy and level reports). */
  level?: number;
  requiredCalls?: number;
}
