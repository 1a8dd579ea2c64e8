/** What the RL step's policy update reports (a subset of @taorl/grpo's update metrics), as its metrics line has it. */
export interface UpdateStats {
  loss: number;
  clipFracLow: number;
  clipFracHigh: number;
  approxKl: number;
  gradNorm: number;
  /** The optimizer steps the learner refused, by reason (a non-finite loss or gradient norm: weights unchanged). */
  skippedUpdates?: string[];
}
