import type { ArithStrategy } from '@taorl/data';
import type { RolloutEnding } from '@taorl/rollout';
import type { DecisionPointStats } from './decision-points';
import type { RolloutStats } from './rollout-stats';
import type { UpdateStats } from './update-stats';

// The RL step's metrics line (metrics.jsonl), which rlStep builds; report/ reads and draws it.

/** Wall-clock split of one step; the parts add up to totalMs. */
export interface TimeSplit {
  /** Inside policy.generate. */
  generationMs: number;
  /** Blocked on the sandbox with no sequence left to generate (tool calls overlap generation otherwise). */
  sandboxMs: number;
  /** Grading, reward shaping, filtering and advantages. */
  scoringMs: number;
  /** Forward, backward and optimizer step. */
  trainingMs: number;
  /** Remote mode: saving the weights and the servers reloading them (0 on steps without a push). */
  weightSyncMs?: number;
  totalMs: number;
}

/**
 * What the rollout entropies (`entropy`, and the entropy shaper's input) are:
 * - 'exact': the full distribution's entropy, from the local policy;
 * - 'top-k estimate': from a server's top-k log-probs, the remaining mass spread uniformly over the other ids
 *   (`entropyFromTopLogprobs`), an upper bound of the exact entropy, tightest where the top k hold most mass;
 * - 'surprisal': -log p(sampled token) from a server asked for no alternatives, right on average but noisy per
 *   token.
 * How the `tao` shaper degrades: it selects the top q_H of the post-tool tokens by entropy and scales the bonus by
 * H / mean(H over the selected). A top-k estimate shifts values up, most where the distribution is flat, so the
 * order is mostly kept and the same tokens are selected, but the shift pulls H / mean towards 1 (a flatter bonus
 * within the selection). Surprisal ranks by a single sample: the selection is partly chance, and picking the
 * highest values favours lucky draws, so the selection mean is biased up.
 */
export type EntropySource = 'exact' | 'top-k estimate' | 'surprisal';

/** One inference server's part in a step's rollouts (remote mode): counts for this step only, not cumulative. */
export interface ServerStepStats {
  /** Base URL. */
  url: string;
  /** Requests sent (first attempts and retries). */
  requests: number;
  /** Of those, retries of a sample that failed before (here or on another server). */
  retries: number;
  /** Its transient failures (connection, timeout, HTTP 5xx / 429). */
  failures: number;
  /** The last of those failures, as the client saw it; absent when it had none this step. */
  lastFailure?: string;
  /** Set when it left the run after this step: it could not be reached to reload the weights. */
  dropped?: string;
}

/** One RL step's metrics line (metrics.jsonl): the rollout statistics, the update's, then the filter and shaping ones. */
export interface RlStepMetrics extends Omit<RolloutStats, 'policyTokens'>, UpdateStats {
  phase: 'rl';
  step: number;
  /** Dropped trajectories per filter reason, summed over refill batches. */
  filterDrops: Record<string, number>;
  /**
   * The filters' own metrics (FilterStats.metrics, named `<filter>.<metric>`), each averaged over the step's
   * rollout batches; absent when no filter reports any.
   */
  filterMetrics?: Record<string, number>;
  /** Masked trajectories (kept in their group, loss mask zeroed) per filter reason. */
  filterMasks?: Record<string, number>;
  /** Trajectories a down-sampler (resample-on-correct) left out of an oversampled group, per reason. */
  filterResamples?: Record<string, number>;
  /** Per configured filter (rl.filters), the trajectories it dropped, masked or resampled; 0 when it did nothing. */
  filterActions?: Record<string, number>;
  /** Trajectories rolled out this step (rollout batches x groups x rl.groupSize): the rollout budget spent. */
  trajectoriesGenerated?: number;
  /** Share of the generated trajectories with a void turn (SimpleTIR: neither a code block nor a final answer). */
  voidTurnRate?: number;
  /** How the step's generated trajectories ended (@taorl/rollout's RolloutEnding), summed over refill batches. */
  endings?: Record<RolloutEnding, number>;
  /** Tool calls that did not parse (rollout.unparseableCall observe / text), summed over refill batches. */
  unparseableCalls?: number;
  /**
   * Remote mode with template tool turns: the share of the checked sample of trajectories whose trained ids leave
   * the chat template's rendering of their messages (checkTemplateIntegrity); 0 when none does.
   */
  templateDriftShare?: number;
  trajectoriesKept: number;
  groupsKept: number;
  genBatches: number;
  /** The advantage estimator's name, and the mean |advantage| over the trained batch. */
  estimator?: string;
  meanAbsAdvantage?: number;
  /** The entropy shaper's name. */
  shaper?: string;
  bonus: { tokens: number; mean: number; max: number };
  /** The entropy shaper's own metrics (ShapingDiagnostics.metrics); absent when it reports none. */
  shaperMetrics?: Record<string, number>;
  /** The first policy tokens after successful tool calls in the trained batch, and the bonus they received. */
  decisionPoints?: DecisionPointStats;
  /** Embedded task: share of generated trajectories per strategy (arithStrategyOf). */
  strategies?: Record<ArithStrategy, number>;
  /** Generated policy tokens per second of step time. */
  tokensPerSecond: number;
  time: TimeSplit;
  /**
   * The weights the step's rollouts sampled from, as the RL steps of training they hold (0 = the weights the run
   * started from; a resumed run counts the steps before it). Local rollouts: the steps done so far.
   */
  policyVersion?: number;
  /** RL steps applied by the trainer since those weights (0 locally, and remotely with reloadEvery 1). */
  policyLag?: number;
  entropySource?: EntropySource;
  /** Remote mode: each server's requests for this step's rollouts. */
  servers?: ServerStepStats[];
}
