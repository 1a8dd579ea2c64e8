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

/**
 * At most `concurrency` runs at once, at most `maxQueue` waiting for one; a request beyond that is refused at once
 * (back-pressure) rather than queued without bound. Waiters are served first come first served.
 */
export class Admission {
  private active = 0;
  private readonly waiting: Waiter[] = [];
  private closed = false;

  constructor(
    readonly concurrency: number,
    readonly maxQueue: number,
  ) {}

  get running(): number {
    return this.active;
  }

  get queued(): number {
    return this.waiting.length;
  }

  /**
   * Resolves when the request may run (then `leave()` must follow); rejects with NotAdmitted when the queue is
   * full, after `timeoutMs` in the queue, when `abandon` fires (the client went away) or on `close()`.
   */
  enter(timeoutMs: number, abandon: AbortSignal): Promise<void> {
    if (this.closed) return Promise.reject(new NotAdmitted('shutting_down', 'the server is shutting down'));
    if (this.active < this.concurrency) {
      this.active++;
      return Promise.resolve();
    }
    if (this.waiting.length >= this.maxQueue) {
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
        const index = this.waiting.indexOf(waiter);
        if (index >= 0) this.waiting.splice(index, 1);
      };
      const waiter: Waiter = {
        admit: () => {
          settle();
          resolve();
        },
        refuse: (error) => {
          settle();
          reject(error);
        },
      };
      const timer = setTimeout(
        () => waiter.refuse(new NotAdmitted('queue_timeout', `no worker was free within ${timeoutMs} ms`)),
        timeoutMs,
      );
      const onAbort = () => waiter.refuse(new NotAdmitted('abandoned', 'the client went away'));
      abandon.addEventListener('abort', onAbort);
      this.waiting.push(waiter);
    });
  }

  /** Ends a run; its seat passes to the first waiter. */
  leave(): void {
    const next = this.waiting[0];
    if (next) next.admit();
    else this.active--;
  }

  /** Refuses every waiting request and every later one; runs already admitted go on. */
  close(): void {
    this.closed = true;
    for (const waiter of [...this.waiting]) {
      waiter.refuse(new NotAdmitted('shutting_down', 'the server is shutting down'));
    }
  }
}
