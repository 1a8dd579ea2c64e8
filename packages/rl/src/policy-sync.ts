import type { EntropySource, RlStepMetrics } from './step-metrics';

/** The weights a step's rollouts sample from: version n holds n RL steps; the lag is how many steps behind. */
export interface RolloutVersion {
  policyVersion: number;
  policyLag: number;
}

/** What a step's metrics record of the rollout policy beyond its version: remote mode's per-server counts. */
export type PolicySyncReport = Pick<RlStepMetrics, 'servers'>;

/**
 * Keeps the rollout policy on the trained weights and says how far behind them it samples. Versions count RL
 * steps: the weights after n steps are version n. Local rollouts sample from the trained policy itself, never
 * behind; remote ones from inference servers that get the weights pushed (`RemoteRollouts`), which also keep
 * the per-server bookkeeping of each step.
 */
export interface PolicySync {
  /** What the rollout entropies are. */
  readonly entropySource: EntropySource;
  /**
   * Before the first rollout: the trained weights hold `steps` RL steps (more than 0 when a run resumes), and
   * rollouts start from exactly them (remote: pushed to every server).
   */
  start(steps: number): Promise<void>;
  /** At the start of each RL step, before its rollouts: the version they sample from (the step's accounting starts). */
  stepStarted(): RolloutVersion;
  /** Once per RL step, after its update: catches up when due, and reports the step (remote: each server's share). */
  trained(): Promise<PolicySyncReport>;
  close(): Promise<void>;
}

/** Rollouts from the trained policy itself: always the current weights. */
export function localPolicySync(): PolicySync {
  let steps = 0;
  return {
    entropySource: 'exact',
    async start(done) {
      steps = done;
    },
    stepStarted: () => ({ policyVersion: steps, policyLag: 0 }),
    async trained() {
      steps++;
      return {};
    },
    async close() {},
  };
}
