import type { Policy } from '@taorl/model';
import type { PolicySync, PolicySyncReport, RolloutVersion, ServerStepStats } from '@taorl/rl';
import type { GeneratedSequence, RolloutPolicy, SamplingParams } from '@taorl/rollout';
import type { RemoteServerStats } from '@taorl/rollout/node';
import { RemotePolicy, type RemotePolicyOptions } from '@taorl/rollout/node';
import { reloadWeights, WeightFolders, WeightReloadError } from './weight-sync.js';

/** The servers and how to talk to them; vocabulary and length come from the trained policy. */
export type RemoteServersOptions = Omit<RemotePolicyOptions, 'vocabSize' | 'maxSequenceLength'>;

export interface WeightPushOptions {
  /** Where the pushed weights go (`step-<n>` folders); every server must read it at the same absolute path. */
  weightsDir: string;
  /** RL steps between pushes (1 = after every step). */
  reloadEvery: number;
  /** Notices for the user (a server leaving the run). */
  log(message: string): void;
}

/** A server that left the run because it could not be reached to reload the weights. */
interface DroppedServer {
  url: string;
  reason: string;
}

/** A server's request counters, cumulative over the run, and its last failure. */
type ServerCounters = Pick<RemoteServerStats, 'url' | 'requests' | 'retries' | 'failures' | 'lastFailure'>;

type Counts = Pick<ServerCounters, 'requests' | 'retries' | 'failures'>;

/**
 * Each server's share of the step: the counters' growth between two snapshots, with the last failure when it
 * failed in the step; marks the servers that left.
 */
function serverStepStats(
  before: readonly ServerCounters[],
  after: readonly ServerCounters[],
  dropped: readonly DroppedServer[],
): ServerStepStats[] {
  return after.map(({ url, requests, retries, failures, lastFailure }) => {
    const start = before.find((server) => server.url === url);
    const reason = dropped.find((server) => server.url === url)?.reason;
    const stepFailures = failures - (start?.failures ?? 0);
    return {
      url,
      requests: requests - (start?.requests ?? 0),
      retries: retries - (start?.retries ?? 0),
      failures: stepFailures,
      ...(stepFailures > 0 && lastFailure !== null ? { lastFailure } : {}),
      ...(reason === undefined ? {} : { dropped: reason }),
    };
  });
}

/**
 * Remote mode's rollout policy: a `RemotePolicy` over inference servers that get the trained weights as
 * Hugging Face folders (POST /update_weights_from_disk on every server) at the start and every `reloadEvery` RL
 * steps. Training stays local, on `trainedPolicy`, whose vocabulary and length bound the servers' answers; the
 * servers must run its architecture and tokenizer.
 *
 * A server that answers a reload with a failure (or not within the timeout) stops the run with an error naming it:
 * its weights are no longer known. A server that cannot be reached at all (connection refused or broken) leaves
 * the run with a notice, and rollouts go on over the others; it gets no requests again, so it cannot serve stale
 * weights if it comes back. No server left is an error.
 */
export class RemoteRollouts implements RolloutPolicy, PolicySync {
  readonly vocabSize: number;
  readonly maxSequenceLength: number;
  readonly concurrentGenerate = true;
  readonly entropySource;
  private endpoints: string[];
  private remote: RemotePolicy;
  private readonly folders: WeightFolders;
  /** Counters of the servers still in the run from RemotePolicy instances replaced after a server left. */
  private readonly earlier = new Map<string, Counts>();
  /** RL steps in the weights the servers hold; -1 until `start` pushed them. */
  private served = -1;
  private steps = 0;
  /** The servers' counters when the current RL step started. */
  private stepStart: ServerCounters[] = [];

  constructor(
    private readonly trainedPolicy: Policy,
    private readonly servers: RemoteServersOptions,
    private readonly pushes: WeightPushOptions,
  ) {
    this.vocabSize = trainedPolicy.vocabSize;
    this.maxSequenceLength = trainedPolicy.maxSequenceLength;
    this.entropySource =
      (servers.topLogprobs ?? 5) > 0 ? ('top-k estimate' as const) : ('surprisal' as const);
    // The servers' roots, for the reload route (RemotePolicy accepts a trailing /v1 on 'openai' endpoints).
    this.endpoints = servers.endpoints.map((url) => url.replace(/\/+$/, '').replace(/\/v1$/, ''));
    this.remote = this.remotePolicy();
    this.folders = new WeightFolders(pushes.weightsDir);
  }

  async generate(prompts: readonly Int32Array[], sampling: SamplingParams): Promise<GeneratedSequence[]> {
    if (this.served < 0) {
      throw new Error('RemoteRollouts: call start() first, so the servers hold the trained weights');
    }
    return this.remote.generate(prompts, sampling);
  }

  async start(steps: number): Promise<void> {
    this.steps = steps;
    await this.push();
  }

  stepStarted(): RolloutVersion {
    this.stepStart = this.serverCounters();
    return { policyVersion: this.served, policyLag: this.steps - this.served };
  }

  /**
   * Pushes the weights when due, and reports each server's requests, retries and failures since `stepStarted`
   * (all of them the step's rollouts: the update in between sends none), a server that left the run marked.
   */
  async trained(): Promise<PolicySyncReport> {
    this.steps++;
    const counters = this.serverCounters();
    const dropped = this.steps - this.served >= this.pushes.reloadEvery ? await this.push() : [];
    return { servers: serverStepStats(this.stepStart, counters, dropped) };
  }

  /** Each server still in the run: its counters over the whole run. */
  private serverCounters(): ServerCounters[] {
    return this.remote.stats().map(({ url, requests, retries, failures, lastFailure }) => {
      const before = this.earlier.get(url);
      return {
        url,
        requests: requests + (before?.requests ?? 0),
        retries: retries + (before?.retries ?? 0),
        failures: failures + (before?.failures ?? 0),
        lastFailure,
      };
    });
  }

  close(): Promise<void> {
    return this.remote.close();
  }

  /** Saves the trained weights and has every server load them; drops the unreachable ones. */
  private async push(): Promise<DroppedServer[]> {
    const dir = await this.folders.save(this.trainedPolicy, this.steps);
    const timeoutMs = this.servers.timeoutMs ?? 120_000;
    const outcomes = await Promise.all(
      this.endpoints.map((url) => reloadWeights(url, dir, timeoutMs, this.servers.apiKey)),
    );
    const errors = outcomes.flatMap((outcome) => (outcome.status === 'failed' ? [outcome.error] : []));
    if (errors.length === 1) throw errors[0]!;
    if (errors.length > 1) {
      throw new WeightReloadError(
        errors.map((error) => error.url).join(', '),
        errors.map((error) => `${error.url} -> ${error.detail}`).join('; '),
      );
    }
    const dropped = outcomes.flatMap((outcome) =>
      outcome.status === 'unreachable' ? [{ url: outcome.url, reason: outcome.reason }] : [],
    );
    if (dropped.length === this.endpoints.length) {
      throw new WeightReloadError(
        this.endpoints.join(', '),
        `no server could be reached to load ${dir}: ${dropped.map((d) => `${d.url} -> ${d.reason}`).join('; ')}`,
      );
    }
    if (dropped.length > 0) await this.leave(dropped);
    this.served = this.steps;
    return dropped;
  }

  /** Replaces the RemotePolicy by one over the servers that loaded the weights. */
  private async leave(dropped: readonly DroppedServer[]): Promise<void> {
    const leaving = new Set(dropped.map((server) => server.url));
    for (const counters of this.serverCounters()) {
      if (!leaving.has(counters.url)) this.earlier.set(counters.url, counters);
    }
    await this.remote.close();
    this.endpoints = this.endpoints.filter((url) => !leaving.has(url));
    this.remote = this.remotePolicy();
    for (const { url, reason } of dropped) {
      this.pushes.log(
        `remote: ${url} left the run: unreachable for the weight reload (${reason}); ` +
          `rollouts go on over ${this.endpoints.join(', ')}`,
      );
    }
  }

  private remotePolicy(): RemotePolicy {
    return new RemotePolicy({
      ...this.servers,
      endpoints: this.endpoints,
      vocabSize: this.vocabSize,
      maxSequenceLength: this.maxSequenceLength,
    });
  }
}
