import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import type { ExecLimits } from '../limits';
import type { WorkerReply } from './classify';
import { LineReader } from './line-reader';

/** How to start one worker process: the full command line and its environment. */
export interface WorkerCommand {
  command: string;
  args: readonly string[];
  env: NodeJS.ProcessEnv;
}

/** The worker process failed (crashed, hung, broke the protocol): a sandbox failure, not the code's. */
export class WorkerFailure extends Error {
  override name = 'WorkerFailure';
}

/** The request as the Python worker reads it (limits flattened, files base64). */
export interface WorkerRequest extends ExecLimits {
  code: string;
  /** base64 */
  stdin: string;
  files: { path: string; data: string }[];
  fetchFiles: readonly string[];
  replay: readonly string[];
}

/** The request could not be prepared (its files do not fit, say); the worker is fine. */
export interface SetupError {
  setupError: string;
  clean: boolean;
}

type Pending = { resolve: (line: string) => void; reject: (error: Error) => void };

const DIAGNOSTIC_CHARS = 2000;

/** One pre-started Python worker, driven one request at a time over JSON lines. */
export class PythonWorker {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly replies = new LineReader();
  private diagnostics = '';
  private pending: Pending | null = null;
  private failure: WorkerFailure | null = null;
  private nextId = 0;
  private readonly exited: Promise<void>;

  private constructor(command: WorkerCommand) {
    this.child = spawn(command.command, command.args, { stdio: ['pipe', 'pipe', 'pipe'], env: command.env });
    // Listened to first: a spawn that fails (ENOENT, or EMFILE when the host is out of file descriptors) is
    // reported here on the next tick, and an 'error' without a listener would end the host process.
    this.child.on('error', (error) => this.fail(`cannot start ${command.command}: ${error.message}`));
    // 'close' rather than 'exit': a reply written just before exiting is still read.
    this.exited = new Promise((resolve) => {
      this.child.on('close', (code, signal) => {
        this.fail(`worker exited (code ${code}, signal ${signal})`);
        resolve();
      });
    });
    // Node leaves the pipes unset when it could not create them (EMFILE); the 'error' above follows.
    if (!(this.child.stdout as unknown)) return;
    this.child.stdout.on('data', (chunk: Buffer) => this.onData(chunk));
    this.child.stderr.setEncoding('utf8');
    this.child.stderr.on('data', (chunk: string) => {
      this.diagnostics = (this.diagnostics + chunk).slice(-DIAGNOSTIC_CHARS);
    });
    this.child.stdin.on('error', () => {
      // A dead worker's stdin fails with EPIPE; the exit handler reports the failure.
    });
    // An idle worker must not keep the host process alive; a pending call holds its own timer.
    this.holdEventLoop(false);
  }

  /** Starts a worker and waits until it has imported its preload modules. */
  static async start(command: WorkerCommand, startupTimeoutMs: number): Promise<PythonWorker> {
    const worker = new PythonWorker(command);
    try {
      const ready = JSON.parse(await worker.nextLine(startupTimeoutMs)) as { ready: boolean; error?: string };
      if (!ready.ready) throw new WorkerFailure(`worker could not start: ${ready.error}`);
      return worker;
    } catch (error) {
      worker.kill();
      throw error instanceof WorkerFailure
        ? error
        : new WorkerFailure(`worker start failed: ${String(error)}`);
    }
  }

  get alive(): boolean {
    return this.failure === null;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /**
   * Runs one request; rejects with WorkerFailure (and kills the worker) if the worker dies, breaks the protocol
   * or does not answer within `watchdogMs`.
   */
  async execute(request: WorkerRequest, watchdogMs: number): Promise<WorkerReply | SetupError> {
    if (this.failure) throw this.failure;
    const id = this.nextId++;
    this.child.stdin.write(`${JSON.stringify({ id, ...request })}\n`);
    let reply: (WorkerReply | SetupError) & { id: number; workerError?: string };
    try {
      reply = JSON.parse(await this.nextLine(watchdogMs));
    } catch (error) {
      this.kill();
      throw error instanceof WorkerFailure
        ? error
        : new WorkerFailure(`unreadable worker reply: ${String(error)}`);
    }
    const broken =
      reply.workerError !== undefined
        ? `worker error: ${reply.workerError}`
        : reply.id !== id
          ? `worker answered request ${reply.id}, expected ${id}`
          : null;
    if (broken !== null) {
      const failure = new WorkerFailure(broken);
      this.kill();
      throw failure;
    }
    // The worker exits after a run it could not clean up after: retire it now, so that no next call is sent to it.
    if (!reply.clean) this.kill();
    return reply;
  }

  /** Kills the worker and, through bubblewrap's pid namespace, everything in it. */
  kill(): void {
    this.fail('worker was stopped');
    this.child.kill('SIGKILL');
  }

  /** Kills the worker and waits until its process is gone. */
  async stop(): Promise<void> {
    // Waiting on an unreferenced process would let the host exit first.
    this.holdEventLoop(true);
    this.kill();
    await this.exited;
  }

  private holdEventLoop(hold: boolean): void {
    const method = hold ? 'ref' : 'unref';
    this.child[method]();
    for (const stream of [this.child.stdin, this.child.stdout, this.child.stderr]) {
      (stream as unknown as Partial<Record<'ref' | 'unref', () => void>> | null)?.[method]?.();
    }
  }

  private nextLine(timeoutMs: number): Promise<string> {
    return new Promise((resolve, reject) => {
      if (this.failure) {
        reject(this.failure);
        return;
      }
      const timer = setTimeout(() => {
        this.fail(`worker did not answer within ${timeoutMs} ms`);
        this.child.kill('SIGKILL');
      }, timeoutMs);
      this.pending = {
        resolve: (line) => {
          clearTimeout(timer);
          resolve(line);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      this.deliver();
    });
  }

  private onData(chunk: Buffer): void {
    try {
      this.replies.push(chunk);
    } catch (error) {
      this.fail(`unreadable worker reply: ${(error as Error).message}`);
      this.child.kill('SIGKILL');
      return;
    }
    this.deliver();
  }

  private deliver(): void {
    if (this.pending === null) return;
    const line = this.replies.take();
    if (line === undefined) return;
    const pending = this.pending;
    this.pending = null;
    pending.resolve(line);
  }

  private fail(reason: string): void {
    if (this.failure) return;
    const detail = this.diagnostics.trim();
    this.failure = new WorkerFailure(detail ? `${reason}; worker stderr: ${detail}` : reason);
    const pending = this.pending;
    this.pending = null;
    pending?.reject(this.failure);
  }
}
