import type { RemoteServerStats } from '../remote/server-pool.js';
import type { EntropySource } from '../report/metrics.js';

/** A server that left the run because it could not be reached to reload the weights. */
export interface DroppedServer {
  url: string;
  reason: string;
}

/** A server's request counters, cumulative over the run. */
export type ServerCounters = Pick<RemoteServerStats, 'url' | 'requests' | 'retries' | 'failures'>;

/**
 * Keeps the rollout policy on the trained weights and says how far behind them it samples. Versions count RL
 * steps: the weights after n steps are version n. Local rollouts sample from the trained policy itself, never
 * behind; remote ones from inference servers that get the weights pushed (`RemoteRollouts`).
 */
export interface PolicySync {
  /** What the rollout entropies are. */
  readonly entropySource: EntropySource;
  /**
   * Before the first rollout: the trained weights hold `steps` RL steps (more than 0 when a run resumes), and
   * rollouts start from exactly them (remote: pushed to every server).
   */
  start(steps: number): Promise<void>;
  /** The version rollouts sample from now, and the RL steps the trainer has taken since. */
  version(): { policyVersion: number; policyLag: number };
  /** Remote rollouts: each server's counters, for the servers still in the run. */
  serverCounters?(): ServerCounters[];
  /** Once per RL step, after its update: catches up when due; returns the servers that left the run. */
  trained(): Promise<DroppedServer[]>;
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
    version: () => ({ policyVersion: steps, policyLag: 0 }),
    async trained() {
      steps++;
      return [];
    },
    async close() {},
  };
}
