/** A question group key: every trajectory sampled for the same prompt shares it. */
export type GroupId = string | number;

/** What group estimators read: the group and the scalar reward of each trajectory. */
export interface RewardedTrajectory {
  readonly groupId: GroupId;
  readonly reward?: number;
}

/** What broadcasting reads: one entry per response token, 1 = policy token, 0 = tool output or inserted text. */
export interface TrajectoryWithLossMask {
  readonly lossMask: Uint8Array;
}

/**
 * One tool call inside a response. `[startToken, endToken)` is the half-open range of response-token indices
 * of its OBSERVATION (the tool output appended with lossMask 0), not of the code that requested it.
 */
export interface ToolCallSpan {
  /** `'ok'` is the only success (the sandbox's ExecResult statuses). */
  readonly status: string;
  readonly startToken: number;
  readonly endToken: number;
}

/** What entropy shapers read: masks, the rollout policy's per-token entropy, and the tool-call spans. */
export interface ShapingTrajectory extends TrajectoryWithLossMask {
  /** Entropy of the rollout distribution at each response token (nats); a constant, no gradient flows. */
  readonly entropies: Float32Array;
  /** Spans in response order, non-overlapping. */
  readonly toolCalls: readonly ToolCallSpan[];
}

/** Per-token advantages, aligned with each trajectory's lossMask. */
export interface TokenAdvantages {
  /** One row per trajectory; views into `packed.data` when packed. */
  readonly perTrajectory: readonly Float32Array[];
  /** All rows back to back; row i is `data[offsets[i] .. offsets[i + 1])`. Null for layout `separate`. */
  readonly packed: { readonly data: Float32Array; readonly offsets: Int32Array } | null;
}

/** `packed` (default): one Float32Array for the whole batch; `separate`: one per trajectory. */
export type AdvantageLayout = 'packed' | 'separate';

/** Which tokens after a successful tool call count as M_post. */
export type PostToolWindow = 'segment' | { readonly firstTokens: number };
