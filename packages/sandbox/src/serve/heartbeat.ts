import type { ServerResponse } from 'node:http';

/**
 * Keeps a slow answer's connection alive: once a request has waited `intervalMs` (for a worker, or for its run),
 * the response's head goes out (200, JSON, chunked) and then one space every `intervalMs` until the answer. JSON
 * allows whitespace before its value, so the client parses the answer as if it came whole, and its read timeout
 * (verl's: compile_timeout + run_timeout + 10 s between two reads) never runs out however long the queue.
 * Once the head is out the status is 200 whatever follows: a failure after it is told in the body, as
 * SandboxFusion tells a sandbox's own failure (status SandboxError, the reason in message).
 */
export class Heartbeat {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly response: ServerResponse,
    private readonly intervalMs: number,
  ) {}

  /** Whether the head went out (the answer's status is then 200). */
  get headSent(): boolean {
    return this.response.headersSent;
  }

  /** Starts counting; a no-op when the interval is 0 (heartbeats off). */
  start(): void {
    if (this.intervalMs === 0 || this.timer !== undefined) return;
    this.timer = setInterval(() => this.beat(), this.intervalMs);
  }

  /** Stops the spaces; the caller then ends the response. */
  stop(): void {
    clearInterval(this.timer);
  }

  private beat(): void {
    if (this.response.destroyed) {
      this.stop();
      return;
    }
    if (!this.response.headersSent) {
      this.response.writeHead(200, { 'content-type': 'application/json' });
    }
    this.response.write(' ');
  }
}
