/**
 * Runs model calls one at a time (one local model) or as they come (`concurrent`: servers batch them), and
 * accumulates the wall time during which at least one call is in flight.
 */
export class ModelCalls {
  busyMs = 0;
  private tail: Promise<unknown> = Promise.resolve();
  private inFlight = 0;
  private busySince = 0;

  constructor(private readonly concurrent: boolean) {}

  run<T>(work: () => Promise<T>): Promise<T> {
    if (this.concurrent) return this.timed(work);
    const next = this.tail.then(() => this.timed(work));
    this.tail = next.catch(() => undefined);
    return next;
  }

  private async timed<T>(work: () => Promise<T>): Promise<T> {
    if (this.inFlight++ === 0) this.busySince = performance.now();
    try {
      return await work();
    } finally {
      if (--this.inFlight === 0) this.busyMs += performance.now() - this.busySince;
    }
  }
}
