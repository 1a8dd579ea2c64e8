/** Why a request got no turn: the queue was full, it waited too long, or the server is shutting down. */
export class NotAdmitted extends Error {
  override name = 'NotAdmitted';
  constructor(
    readonly reason: 'queue_full' | 'queue_timeout' | 'shutting_down' | 'abandoned',
    message: string,
  ) {
    super(message);
  }
}

interface Waiter {
  admit: () => void;
  refuse: (error: NotAdmitted) => void;
}

/** What a request not yet running holds of the queue's memory; given back when it runs or is answered. */
export class QueueShare {
  bytes = 0;
}

const MB = 1024 * 1024;

/**
 * At most `concurrency` runs at once. Requests not yet running (their bodies still arriving, or waiting for a
 * worker) share a memory budget of `maxQueueBytes`, each charged as it grows; one that would go past it is refused
 * at once (back-pressure) rather than held without bound, and so is one more than `maxQueue` waiting. Waiters are
 * served first come first served.
 */
export class Admission {
  private active = 0;
  // A Set keeps the arrival order and forgets any member in constant time (a request that gives up mid-queue).
  private readonly waiting = new Set<Waiter>();
  private heldBytes = 0;
  private closed = false;

  constructor(
    readonly concurrency: number,
    readonly maxQueue: number,
    readonly maxQueueBytes: number,
  ) {}

  get running(): number {
    return this.active;
  }

  get queued(): number {
    return this.waiting.size;
  }

  /** Bytes held by requests not yet running. */
  get queuedBytes(): number {
    return this.heldBytes;
  }

  /** Adds `bytes` to a request's share; throws NotAdmitted (queue_full) when the budget cannot take them. */
  charge(share: QueueShare, bytes: number): void {
    if (this.heldBytes + bytes > this.maxQueueBytes) {
      throw new NotAdmitted(
        'queue_full',
        `requests waiting for a worker hold ${(this.heldBytes / MB).toFixed(1)} MB, and this one would take the ` +
          `queue past its limit of ${(this.maxQueueBytes / MB).toFixed(1)} MB`,
      );
    }
    this.heldBytes += bytes;
    share.bytes += bytes;
  }

  /** Gives a request's share back (idempotent). */
  release(share: QueueShare): void {
    this.heldBytes -= share.bytes;
    share.bytes = 0;
  }

  /**
   * Resolves when the request may run (its share is given back; `leave()` must follow); rejects with NotAdmitted
   * when the queue is full, after `timeoutMs` in the queue (Infinity: no limit), when `abandon` fires (the client went away) or on
   * `close()`.
   */
  enter(share: QueueShare, timeoutMs: number, abandon: AbortSignal): Promise<void> {
    if (this.closed) return Promise.reject(new NotAdmitted('shutting_down', 'the server is shutting down'));
    if (this.active < this.concurrency) {
      this.active++;
      this.release(share);
      return Promise.resolve();
    }
    if (this.waiting.size >= this.maxQueue) {
      return Promise.reject(
        new NotAdmitted(
          'queue_full',
          `all ${this.concurrency} workers are busy and ${this.maxQueue} requests wait`,
        ),
      );
    }
    return new Promise<void>((resolve, reject) => {
      const settle = () => {
        clearTimeout(timer);
        abandon.removeEventListener('abort', onAbort);
        this.waiting.delete(waiter);
      };
      const waiter: Waiter = {
        admit: () => {
          settle();
          this.release(share);
          resolve();
        },
        refuse: (error) => {
          settle();
          reject(error);
        },
      };
      // No timer for an unlimited wait (setTimeout would take Infinity for 1 ms).
      const timer = Number.isFinite(timeoutMs)
        ? setTimeout(
            () =>
              waiter.refuse(new NotAdmitted('queue_timeout', `no worker was free within ${timeoutMs} ms`)),
            timeoutMs,
          )
        : undefined;
      const onAbort = () => waiter.refuse(new NotAdmitted('abandoned', 'the client went away'));
      abandon.addEventListener('abort', onAbort);
      this.waiting.add(waiter);
    });
  }

  /** Ends a run; its seat passes to the first waiter. */
  leave(): void {
    const next = this.waiting.values().next();
    if (next.done) this.active--;
    else next.value.admit();
  }

  /** Refuses every waiting request and every later one; runs already admitted go on. */
  close(): void {
    this.closed = true;
    for (const waiter of [...this.waiting]) {
      waiter.refuse(new NotAdmitted('shutting_down', 'the server is shutting down'));
    }
  }
}
