import { setMaxListeners } from 'node:events';
import { RemotePolicyError, RemoteServersUnavailableError, TransientServerError } from '@taorl/rollout';
import { linkAbort } from './abort-link.js';

/** Counters of one server, as `RemotePolicy.stats()` reports them. */
export interface RemoteServerStats {
  /** The server's base URL. */
  url: string;
  /** Requests sent to it (first attempts and retries). */
  requests: number;
  /** Of those, retries of a sample that failed before (here or on another server). */
  retries: number;
  /** Its transient failures (connection, timeout, HTTP 5xx / 429). */
  failures: number;
  /** Requests in flight now. */
  inFlight: number;
  /** Whether it is cooling down after a failure (no new requests until it ends or every server is down). */
  coolingDown: boolean;
  /** Its last failure, or null when it never failed. */
  lastFailure: string | null;
}

export interface ServerPoolOptions {
  /** Requests in flight per server at most. */
  maxConcurrentPerServer: number;
  /** Attempts per request, across servers, before giving up. */
  maxAttempts: number;
  /** Wait before probing again when every server is down; doubles per failure of the request, capped. */
  retryDelayMs: number;
  /** A failed server gets no requests for this long; doubles per consecutive failure, capped at 16x. */
  cooldownMs: number;
}

interface ServerState {
  url: string;
  requests: number;
  retries: number;
  failures: number;
  inFlight: number;
  lastFailure: string | null;
  consecutiveFailures: number;
  /** Date.now() until which it cools down. */
  coolUntil: number;
}

/** The longest wait between two probes when every server is down. */
const MAX_RETRY_DELAY_MS = 10_000;

/**
 * Inference servers shared by many concurrent requests: each request goes to the server with the fewest requests
 * in flight among those not cooling down, never past `maxConcurrentPerServer` (requests beyond wait for a slot).
 * A transient failure puts the server in cool-down and the request is retried on another one; when every server
 * is down the request waits (exponential backoff) and probes the one recovering first, until `maxAttempts`.
 */
export class ServerPool {
  private readonly servers: ServerState[];
  private readonly wakers = new Set<() => void>();
  /** Every request in flight listens to it (so more than Node's default of 10 listeners is expected). */
  private readonly closing = (() => {
    const controller = new AbortController();
    setMaxListeners(0, controller.signal);
    return controller;
  })();
  /** Where the next tie between equally loaded servers starts, so sequential requests rotate over servers. */
  private rotation = 0;

  constructor(
    urls: readonly string[],
    private readonly options: ServerPoolOptions,
  ) {
    this.servers = urls.map((url) => ({
      url,
      requests: 0,
      retries: 0,
      failures: 0,
      inFlight: 0,
      lastFailure: null,
      consecutiveFailures: 0,
      coolUntil: 0,
    }));
  }

  /**
   * Runs `attempt` against a server (its base URL) until it succeeds, retrying transient failures on other
   * servers. Any other error ends the request at once. `cancel` abandons the request without blaming a server.
   */
  async run<T>(attempt: (url: string, cancel: AbortSignal) => Promise<T>, cancel: AbortSignal): Promise<T> {
    const link = linkAbort([cancel, this.closing.signal]);
    try {
      return await this.attempts(attempt, link.signal);
    } finally {
      link.dispose();
    }
  }

  stats(): RemoteServerStats[] {
    const now = Date.now();
    return this.servers.map(({ url, requests, retries, failures, inFlight, coolUntil, lastFailure }) => ({
      url,
      requests,
      retries,
      failures,
      inFlight,
      coolingDown: coolUntil > now,
      lastFailure,
    }));
  }

  /** Fails waiting and in-flight requests; later ones fail at once. */
  close(): void {
    this.closing.abort(new RemotePolicyError(this.servers.map((server) => server.url).join(', '), 'closed'));
    this.wake();
  }

  private async attempts<T>(
    attempt: (url: string, cancel: AbortSignal) => Promise<T>,
    abandon: AbortSignal,
  ): Promise<T> {
    for (let failures = 0; ; failures++) {
      const server = await this.acquire(failures, abandon);
      server.requests++;
      if (failures > 0) server.retries++;
      try {
        const result = await attempt(server.url, abandon);
        server.consecutiveFailures = 0;
        server.coolUntil = 0;
        return result;
      } catch (error) {
        if (abandon.aborted || !(error instanceof TransientServerError)) throw error;
        this.markFailed(server, error.message);
        if (failures + 1 >= this.options.maxAttempts) {
          throw new RemoteServersUnavailableError(
            this.options.maxAttempts,
            this.servers.map(({ url, lastFailure }) => ({ url, lastFailure })),
          );
        }
      } finally {
        server.inFlight--;
        this.wake();
      }
    }
  }

  /** Reserves a slot on a server (its inFlight is counted before returning), waiting while none fits. */
  private async acquire(failures: number, abandon: AbortSignal): Promise<ServerState> {
    let probeAt: number | undefined;
    for (;;) {
      if (abandon.aborted) throw abandon.reason;
      const now = Date.now();
      const withRoom = this.servers.filter((server) => server.inFlight < this.options.maxConcurrentPerServer);
      const healthy = withRoom.filter((server) => server.coolUntil <= now);
      let chosen = this.leastLoaded(healthy);
      const allDown = withRoom.length > 0 && this.servers.every((server) => server.coolUntil > now);
      if (chosen === undefined && allDown) {
        probeAt ??= now + Math.min(this.options.retryDelayMs * 2 ** failures, MAX_RETRY_DELAY_MS);
        if (now >= probeAt) chosen = withRoom.reduce((a, b) => (b.coolUntil < a.coolUntil ? b : a));
      }
      if (chosen !== undefined) {
        chosen.inFlight++;
        return chosen;
      }
      // Wake on a released slot, a recovered server, or when the probe is due.
      const coolingEnds = withRoom.map((server) => server.coolUntil - now).filter((wait) => wait > 0);
      await this.waitForChange(
        Math.min(probeAt === undefined ? Infinity : probeAt - now, ...coolingEnds),
        abandon,
      );
    }
  }

  private leastLoaded(candidates: readonly ServerState[]): ServerState | undefined {
    let best: ServerState | undefined;
    const count = this.servers.length;
    for (let offset = 0; offset < count; offset++) {
      const server = this.servers[(this.rotation + offset) % count]!;
      if (candidates.includes(server) && (best === undefined || server.inFlight < best.inFlight))
        best = server;
    }
    if (best !== undefined) this.rotation = (this.servers.indexOf(best) + 1) % count;
    return best;
  }

  private markFailed(server: ServerState, message: string): void {
    server.failures++;
    server.lastFailure = message;
    server.consecutiveFailures++;
    const cooldown = this.options.cooldownMs * Math.min(2 ** (server.consecutiveFailures - 1), 16);
    server.coolUntil = Date.now() + cooldown;
  }

  private waitForChange(timeoutMs: number, abandon: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakers.delete(done);
        abandon.removeEventListener('abort', done);
        resolve();
      };
      const timer = Number.isFinite(timeoutMs) ? setTimeout(done, Math.max(0, timeoutMs)) : undefined;
      this.wakers.add(done);
      abandon.addEventListener('abort', done);
    });
  }

  private wake(): void {
    for (const waker of [...this.wakers]) waker();
  }
}
