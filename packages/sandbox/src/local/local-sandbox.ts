import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { threadId } from 'node:worker_threads';
import {
  type ExecLimits,
  type ResolvedRequest,
  resolveBatch,
  resolveLimits,
  resolveRequest,
} from '../limits';
import type { ExecRequest, ExecResult, Sandbox } from '../types';
import { bwrapArgs, DEFAULT_READ_ONLY_PATHS, probeBwrap, SANDBOX_SCRATCH } from './bwrap';
import { sandboxError, toExecResult } from './classify';
import { PythonWorker, type WorkerCommand, WorkerFailure, type WorkerRequest } from './python-worker';
import { defaultWarmup } from './warmup';
import { WORKER_SCRIPT } from './worker-script';

/**
 * - `required` (default): bubblewrap namespaces or nothing; `createSandbox` rejects when they are unavailable.
 * - `preferred`: bubblewrap when it works, else unisolated with a loud warning.
 * - `none`: never isolate (trusted code, or measuring the ceiling), with a loud warning.
 */
export type IsolationMode = 'required' | 'preferred' | 'none';

export interface LocalSandboxOptions {
  /** Python interpreter; default /usr/bin/python3 (Debian's, which has sympy and numpy). */
  pythonPath?: string;
  /** bubblewrap executable; default `bwrap` on PATH. */
  bwrapPath?: string;
  isolation?: IsolationMode;
  /** Pool size = the most executions at once. Default: available CPUs, at most 8. */
  workers?: number;
  /** Modules each worker imports before forking children. Default ['sympy', 'numpy']. */
  preload?: readonly string[];
  /**
   * Python run once in each worker after the imports, so children inherit warm library caches. Default: a
   * snippet exercising common sympy and numpy calls (for the preloaded ones); '' for none.
   */
  warmup?: string;
  /**
   * `fork` (default): pre-started workers fork a fresh child per execution. `spawn`: a fresh sandbox and
   * interpreter per execution, nothing preloaded (the naive baseline; slower, for comparison).
   */
  mode?: 'fork' | 'spawn';
  /** Default limits of every execution; a request may override timeoutMs, cpuTimeMs and memoryMb. */
  limits?: Partial<ExecLimits>;
  /**
   * First uid of this sandbox's runs when the host process is root; worker i runs code as uidBase + i, so
   * RLIMIT_NPROC (counted per uid) limits one run, not the whole pool. Default: a block derived from the pid.
   */
  uidBase?: number;
  /** Size of each worker's scratch tmpfs. Default 256. */
  scratchMb?: number;
  /** Host paths visible read-only inside the sandbox; the interpreter's prefix is added when outside them. */
  readOnlyPaths?: readonly string[];
  /** How long a worker may take to start and import its preloads. Default 60 000. */
  startupTimeoutMs?: number;
}

/** The local backend's sandbox: the common interface plus what it chose at start. */
export interface LocalSandbox extends Sandbox {
  readonly isolation: 'bwrap' | 'none';
  readonly workers: number;
  /** Process ids of the running worker processes (bwrap, or python when unisolated), for monitoring. */
  workerPids(): number[];
}

const WORKER_ENV = {
  PATH: '/usr/local/bin:/usr/bin:/bin',
  LANG: 'C.UTF-8',
  OPENBLAS_NUM_THREADS: '1',
  OMP_NUM_THREADS: '1',
  MKL_NUM_THREADS: '1',
};
/** Time the worker may need beyond the code's own limit: cleanup (up to 2 s) and the reply. */
const WATCHDOG_GRACE_MS = 5000;
const UIDS_PER_PROCESS = 4096;
let uidsTaken = 0;

function defaultUidBase(): number {
  // Distinct per host process and thread, so concurrent sandboxes (test files, trainers) do not share
  // RLIMIT_NPROC.
  return 1_000_000 + ((process.pid * 64 + threadId) % 100_000) * UIDS_PER_PROCESS;
}

function loudWarning(reason: string): void {
  process.emitWarning(
    `@taorl/sandbox is running code WITHOUT ISOLATION (${reason}): no namespaces, the host's network and ` +
      'filesystem are reachable. Use it only for trusted code.',
    { code: 'TAORL_SANDBOX_UNISOLATED' },
  );
}

function toWorkerRequest(request: ResolvedRequest): WorkerRequest {
  return {
    code: request.code,
    stdin: request.stdin,
    files: request.files.map((file) => ({
      path: file.path,
      data: Buffer.from(typeof file.content === 'string' ? Buffer.from(file.content) : file.content).toString(
        'base64',
      ),
    })),
    replay: request.session,
    ...request.limits,
  };
}

/** One pool seat: a uid, a scratch directory and the worker currently serving them (replaced after a crash). */
class Slot {
  private worker: Promise<PythonWorker> | null = null;
  private stopped = false;
  pid: number | undefined;

  constructor(
    private readonly command: () => WorkerCommand,
    private readonly startupTimeoutMs: number,
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
        request.limits.timeoutMs + WATCHDOG_GRACE_MS,
      );
      return toExecResult(reply);
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

class LocalPool implements LocalSandbox {
  readonly backend = 'local';
  private readonly idle: Slot[];
  private readonly waiting: ((slot: Slot) => void)[] = [];
  private closed = false;

  constructor(
    private readonly slots: Slot[],
    private readonly limits: ExecLimits,
    readonly isolation: 'bwrap' | 'none',
    private readonly cleanup: () => void,
  ) {
    this.idle = [...slots];
  }

  get workers(): number {
    return this.slots.length;
  }

  async start(): Promise<void> {
    await Promise.all(this.slots.map((slot) => slot.warm()));
  }

  workerPids(): number[] {
    return this.slots.map((slot) => slot.pid).filter((pid): pid is number => pid !== undefined);
  }

  async run(request: ExecRequest): Promise<ExecResult> {
    if (this.closed) throw new Error('@taorl/sandbox: run() after close()');
    const resolved = resolveRequest(request, this.limits);
    const slot = this.idle.pop() ?? (await new Promise<Slot>((resolve) => this.waiting.push(resolve)));
    try {
      return await slot.execute(resolved);
    } finally {
      const next = this.waiting.shift();
      if (next) next(slot);
      else this.idle.push(slot);
    }
  }

  async runMany(requests: readonly ExecRequest[]): Promise<ExecResult[]> {
    // Every request is checked before any runs, so a bad one fails the batch without side effects.
    resolveBatch(requests, this.limits);
    return Promise.all(requests.map((request) => this.run(request)));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all(this.slots.map((slot) => slot.stop()));
    this.cleanup();
  }
}

/** Starts the local backend: probes isolation, starts the pool, waits until every worker has its preloads. */
export async function createLocalSandbox(options: LocalSandboxOptions = {}): Promise<LocalSandbox> {
  const pythonPath = options.pythonPath ?? '/usr/bin/python3';
  try {
    accessSync(pythonPath, constants.X_OK);
  } catch {
    throw new TypeError(`createSandbox: pythonPath ${JSON.stringify(pythonPath)} is not an executable file`);
  }
  const bwrapPath = options.bwrapPath ?? 'bwrap';
  const isolationMode = options.isolation ?? 'required';
  if (!['required', 'preferred', 'none'].includes(isolationMode)) {
    throw new TypeError(
      `createSandbox: isolation must be 'required', 'preferred' or 'none', got ${String(isolationMode)}`,
    );
  }
  const mode = options.mode ?? 'fork';
  if (mode !== 'fork' && mode !== 'spawn')
    throw new TypeError(`createSandbox: mode must be 'fork' or 'spawn', got ${String(mode)}`);
  const workers = options.workers ?? Math.min(8, availableParallelism());
  if (!Number.isInteger(workers) || workers < 1)
    throw new TypeError(`createSandbox: workers must be a positive integer, got ${workers}`);
  const limits = resolveLimits(options.limits, 'createSandbox limits');
  const asRoot = process.getuid?.() === 0;
  const layout = {
    pythonPath,
    readOnlyPaths: options.readOnlyPaths ?? DEFAULT_READ_ONLY_PATHS,
    scratchBytes: (options.scratchMb ?? 256) * 1024 * 1024,
    asRoot,
  };

  let isolation: 'bwrap' | 'none' = 'none';
  if (isolationMode === 'none') loudWarning("isolation: 'none' was requested");
  else {
    const problem = await probeBwrap(bwrapPath, layout);
    if (problem === null) isolation = 'bwrap';
    else if (isolationMode === 'preferred') loudWarning(`bubblewrap is unavailable: ${problem}`);
    else {
      throw new Error(
        `@taorl/sandbox: refusing to start without isolation: ${problem}. Install bubblewrap (and allow user ` +
          "namespaces when not root), or pass isolation: 'preferred' or 'none' to run code unisolated.",
      );
    }
  }

  const preload = mode === 'spawn' ? [] : [...(options.preload ?? ['sympy', 'numpy'])];
  const warmup = mode === 'spawn' ? '' : (options.warmup ?? defaultWarmup(preload));
  const scratchDirs: string[] = [];
  const command = (uid: number | null, scratch: string): WorkerCommand => {
    const config = JSON.stringify({ scratch, uid, ownPidNamespace: isolation === 'bwrap', preload, warmup });
    const python = [pythonPath, '-I', '-B', '-c', WORKER_SCRIPT, config];
    return isolation === 'bwrap'
      ? { command: bwrapPath, args: [...bwrapArgs(layout), ...python], env: WORKER_ENV }
      : { command: pythonPath, args: python.slice(1), env: WORKER_ENV };
  };
  const uidBase = options.uidBase ?? defaultUidBase() + uidsTaken;
  if (options.uidBase === undefined) uidsTaken = (uidsTaken + workers) % UIDS_PER_PROCESS;
  const slots = Array.from({ length: workers }, (_, index) => {
    const uid = asRoot ? uidBase + index : null;
    // Unisolated workers get a private host directory; isolated ones a tmpfs of their own at the same path.
    const scratch = isolation === 'bwrap' ? SANDBOX_SCRATCH : mkdtempSync(join(tmpdir(), 'taorl-sandbox-'));
    if (isolation === 'none') scratchDirs.push(scratch);
    return new Slot(() => command(uid, scratch), options.startupTimeoutMs ?? 60_000, mode === 'fork');
  });
  const pool = new LocalPool(slots, limits, isolation, () => {
    for (const dir of scratchDirs) rmSync(dir, { recursive: true, force: true });
  });
  if (mode === 'fork') {
    try {
      await pool.start();
    } catch (error) {
      await pool.close();
      throw new Error(`@taorl/sandbox: the worker pool did not start: ${(error as Error).message}`);
    }
  }
  return pool;
}
