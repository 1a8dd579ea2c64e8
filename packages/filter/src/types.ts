/** A question group key: every trajectory sampled for the same prompt shares it. */
export type GroupId = string | number;

/** Status of one tool call; `'ok'` is the only success (the sandbox's ExecResult statuses). */
export interface FilterableToolCall {
  readonly status: string;
  /** The observation text inserted for the call (@taorl/data's ToolCall has it); resample-on-correct reads it. */
  readonly output?: string;
}

/**
 * The minimal trajectory shape the filters read. @taorl/data's Trajectory satisfies it; so does any plain object
 * with these fields.
 */
export interface FilterableTrajectory {
  readonly groupId: GroupId;
  /** The grader's verdict. When absent, `reward > 0` counts as correct. */
  readonly correct?: boolean;
  /** The scalar reward; required when `correct` is absent or when a filter reads rewards. */
  readonly reward?: number;
  readonly toolCalls: readonly FilterableToolCall[];
  /** 1 = policy token, 0 = tool output or inserted text. Required by every filter in `mask` mode. */
  readonly lossMask?: Uint8Array;
  /**
   * SimpleTIR's void turn: a turn that produced neither a complete code block nor a final answer (`voidTurns`
   * computes it from the assistant turns).
   */
  readonly voidTurn?: boolean;
  /** Closed final answers of the response (`answerFormatFacts`); read by `resample-on-correct`'s format penalty. */
  readonly answerCount?: number;
  /** Final-answer openings, closed or not (`answerFormatFacts`); read by the format penalty. */
  readonly answerOpenings?: number;
  /** Assistant turns after the first that ended (`answerFormatFacts`); read by the format penalty. */
  readonly laterTurns?: number;
  /** The response hit the length budget before a final answer or EOS. */
  readonly truncated?: boolean;
  /**
   * The response's token ids, tool observations included: its length is the response length (@taorl/data's
   * Trajectory has it). For a filter that reads lengths.
   */
  readonly responseIds?: ArrayLike<number>;
}

/** `drop` removes a trajectory from the batch; `mask` keeps it (and its reward in the group) with a zero loss mask. */
export type FilterMode = 'drop' | 'mask';

/**
 * What a filter does to one trajectory: a FilterMode, or `resample`: a down-sampler (resample-on-correct) did not
 * pick it from an oversampled group. A resampled trajectory leaves the batch like a dropped one, but it is
 * surplus by design rather than rejected, and is counted apart.
 */
export type FilterAction = FilterMode | 'resample';

/** A trajectory removed from the batch (dropped or resampled away), with the filter and reason that removed it. */
export interface DroppedTrajectory<T> {
  readonly item: T;
  /** Position in the input batch (or the `positions` given to `apply`). */
  readonly index: number;
  readonly filter: string;
  readonly reason: string;
}

/** A trajectory kept with its loss mask zeroed (mode `mask`). */
export interface MaskedTrajectory {
  /** Position in the input batch (or the `positions` given to `apply`). */
  readonly index: number;
  readonly filter: string;
  readonly reason: string;
}

/** Pass rate of one question group, as answer discriminability saw it. */
export interface GroupPassRate {
  readonly groupId: GroupId;
  readonly size: number;
  readonly correct: number;
  readonly passRate: number;
  /** The drop reason, or `'kept'`. */
  readonly outcome: string;
}

/** Pass rates over the groups a filter examined. */
export interface PassRateReport {
  /**
   * Counts of groups per pass-rate bin: bin b holds rho in [b / bins, (b + 1) / bins), the last bin also rho = 1.
   */
  readonly histogram: readonly number[];
  readonly groups: readonly GroupPassRate[];
}

/** What one filter (or a composition) did to a batch. */
export interface FilterStats {
  readonly filter: string;
  readonly input: number;
  readonly inputGroups: number;
  readonly kept: number;
  readonly keptGroups: number;
  /** Trajectories dropped, per reason. */
  readonly dropped: Readonly<Record<string, number>>;
  /** Trajectories kept with a zeroed loss mask, per reason. */
  readonly masked: Readonly<Record<string, number>>;
  /** Trajectories a down-sampler left out of an oversampled group, per reason. */
  readonly resampled: Readonly<Record<string, number>>;
  /** Present when the filter computed pass rates (answer discriminability). */
  readonly passRates?: PassRateReport;
  /** The stages of a composition, in order; empty for a single filter. */
  readonly stages: readonly FilterStats[];
  /**
   * The filter's own named numbers for this batch (rates or means, e.g. `meanResponseTokens`): the trainer writes
   * them to its metrics lines. A composition has each stage's, named `<stage filter>.<metric>`.
   */
  readonly metrics?: Readonly<Record<string, number>>;
}

export interface FilterResult<T> {
  /** Survivors in batch order; masked survivors are copies with a zero `lossMask`, the rest are the inputs. */
  readonly kept: T[];
  /** For each kept trajectory, its position in the input batch (or the `positions` given to `apply`). */
  readonly keptIndices: number[];
  readonly dropped: DroppedTrajectory<T>[];
  readonly masked: MaskedTrajectory[];
  /** Trajectories a down-sampler did not pick (action `resample`), in batch order. */
  readonly resampled: DroppedTrajectory<T>[];
  readonly stats: FilterStats;
}

/** A batch in, survivors and the reasons for every removal out. Never mutates its input. */
export interface Filter {
  readonly name: string;
  /**
   * @param positions where each batch item sits in the caller's batch; reports and error messages use them
   *   (a composition passes the original positions to its later stages). Default: 0..n-1.
   */
  apply<T extends FilterableTrajectory>(batch: readonly T[], positions?: readonly number[]): FilterResult<T>;
}
