import { base64Content, type ResolvedRequest } from '../limits';
import { sandboxError } from '../sandbox-error';
import type { ExecResult } from '../types';
import { toExecResult } from './classify';
import { PythonWorker, type WorkerCommand, WorkerFailure, type WorkerRequest } from './python-worker';

function toWorkerRequest(request: ResolvedRequest): WorkerRequest {
  return {
    code: request.code,
    // As base64 of its UTF-8 bytes, like files: a lone surrogate becomes U+FFFD instead of failing the worker.
    stdin: base64Content(request.stdin),
    files: request.files.map((file) => ({ path: file.path, data: base64Content(file.content) })),
    fetchFiles: request.fetchFiles,
    replay: request.session,
    ...request.limits,
  };
}

/** One pool seat: a uid, a scratch directory and the worker currently serving them (replaced after a crash). */
export class Slot {
  private worker: Promise<PythonWorker> | null = null;
  private stopped = false;
  pid: number | undefined;

  constructor(
    private readonly command: () => WorkerCommand,
    private readonly startupTimeoutMs: number,
    private readonly watchdogGraceMs: number,
    private readonly reuse: boolean,
  ) {}

  warm(): Promise<PythonWorker> {
    if (this.stopped) return Promise.reject(new WorkerFailure('the sandbox is closed'));
    if (this.worker === null) {
      const starting = PythonWorker.start(this.command(), this.startupTimeoutMs);
      starting.then(
        (worker) => {
          this.pid = worker.pid;
        },
        () => {
          if (this.worker === starting) this.worker = null;
        },
      );
      this.worker = starting;
    }
    return this.worker;
  }

  async execute(request: ResolvedRequest): Promise<ExecResult> {
    const started = performance.now();
    let worker: PythonWorker | undefined;
    try {
      worker = await this.warm();
      const reply = await worker.execute(
        toWorkerRequest(request),
        request.limits.timeoutMs + this.watchdogGraceMs,
      );
      if ('setupError' in reply) return sandboxError(reply.setupError, performance.now() - started);
      return toExecResult(reply, request.fetchFiles.length > 0);
    } catch (error) {
      if (!(error instanceof WorkerFailure)) throw error;
      return sandboxError(error.message, performance.now() - started);
    } finally {
      if (worker && (!this.reuse || !worker.alive)) this.retire(worker);
    }
  }

  private retire(worker: PythonWorker): void {
    worker.kill();
    this.worker = null;
    this.pid = undefined;
    // In fork mode a fresh worker starts at once, so the next call does not pay for the start.
    if (this.reuse) this.warm().catch(() => undefined);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    const worker = this.worker;
    this.worker = null;
    await (await worker?.catch(() => null))?.stop();
  }
}
