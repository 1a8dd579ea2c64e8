import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { threadId } from 'node:worker_threads';
import { type ExecLimits, type ResolvedRequest, resolveBatch, resolveRequest } from '../limits';
import { pythonProgram } from '../python-programs';
import type { ExecRequest, ExecResult, Sandbox } from '../types';
import {
  type BwrapLayout,
  bwrapArgs,
  linkedRootNames,
  probeBwrap,
  ROOT_LINKS_DIRECTORY,
  SANDBOX_CGROUP,
  SANDBOX_SCRATCH,
  SANDBOX_SHM,
} from './bwrap';
import { createMemoryCgroups, type MemoryCgroups } from './memory-cgroup';
import {
  checkPythonPath,
  type IsolationMode,
  type LocalSandboxOptions,
  resolveLocalOptions,
} from './options';
import type { WorkerCommand } from './python-worker';
import { Slot } from './slot';

/** The local backend's sandbox: the common interface plus what it chose at start. */
export interface LocalSandbox extends Sandbox {
  readonly isolation: 'bwrap' | 'none';
  readonly workers: number;
  /**
   * What bounds a run's memory: a memory cgroup per seat ('cgroup v1' or 'cgroup v2': all the run's processes
   * together get `memoryMb`), or only RLIMIT_AS ('per process': each process gets `memoryMb`, so a run may use up
   * to `maxProcesses` times that). `memoryLimitReason` says why there is no cgroup.
   */
  readonly runMemoryLimit: 'cgroup v1' | 'cgroup v2' | 'per process';
  readonly memoryLimitReason?: string;
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
const UIDS_PER_PROCESS = 4096;

/**
 * Starts the worker with a soft stack limit of 64 GiB (or the hard limit, if lower): the kernel leaves room for the
 * stack below the memory maps by the limit at exec, and a run may grow its stack up to its memory limit, as in
 * SandboxFusion (python/worker.py sets each run's limit, and keeps threads at 8 MiB). One /bin/sh exec (a
 * millisecond), as Node cannot set a child's rlimits.
 */
function withLargeStackLimit(command: WorkerCommand): WorkerCommand {
  const raise = 'ulimit -S -s 67108864 2>/dev/null || ulimit -S -s "$(ulimit -H -s)"; exec "$@"';
  return { ...command, command: '/bin/sh', args: ['-c', raise, 'sh', command.command, ...command.args] };
}
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

let warnedMemoryPerProcess = false;

function warnMemoryPerProcess(reason: string): void {
  if (warnedMemoryPerProcess) return;
  warnedMemoryPerProcess = true;
  process.emitWarning(
    `@taorl/sandbox bounds memory per process only (${reason}): a run of several processes may use up to ` +
      'maxProcesses x memoryMb of host memory.',
    { code: 'TAORL_SANDBOX_MEMORY_PER_PROCESS' },
  );
}

class LocalPool implements LocalSandbox {
  readonly backend = 'local';
  private readonly idle: Slot[];
  private readonly waiting: ((slot: Slot) => void)[] = [];
  private closed = false;

  readonly runMemoryLimit: LocalSandbox['runMemoryLimit'];
  readonly memoryLimitReason?: string;

  constructor(
    private readonly slots: Slot[],
    private readonly limits: ExecLimits,
    readonly isolation: 'bwrap' | 'none',
    memory: MemoryCgroups | { reason: string },
    private readonly linkedRootNames: ReadonlySet<string>,
    private readonly cleanup: () => Promise<void>,
  ) {
    this.idle = [...slots];
    if ('reason' in memory) {
      this.runMemoryLimit = 'per process';
      this.memoryLimitReason = memory.reason;
    } else this.runMemoryLimit = memory.version === 2 ? 'cgroup v2' : 'cgroup v1';
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

  /** resolveRequest, and absolute paths checked against the directories this sandbox links (none unisolated). */
  private resolve(request: ExecRequest): ResolvedRequest {
    const resolved = resolveRequest(request, this.limits);
    const paths = [
      ...resolved.files.map((file, index) => [file.path, `ExecRequest.files[${index}].path`]),
      ...resolved.fetchFiles.map((path, index) => [path, `ExecRequest.fetchFiles[${index}]`]),
    ];
    for (const [path, label] of paths) {
      if (path?.startsWith('/') && !this.linkedRootNames.has(path.split('/')[1] ?? '')) {
        throw new TypeError(
          `${label} ${JSON.stringify(path)} is absolute, and this sandbox has no directory of the run's there ` +
            (this.isolation === 'none'
              ? "(unisolated, it would be the host's)"
              : `(it links ${[...this.linkedRootNames].map((name) => `/${name}`).join(', ')})`),
        );
      }
    }
    return resolved;
  }

  async run(request: ExecRequest): Promise<ExecResult> {
    if (this.closed) throw new Error('@taorl/sandbox: run() after close()');
    const resolved = this.resolve(request);
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
    requests.forEach((request, index) => {
      try {
        this.resolve(request);
      } catch (error) {
        throw new TypeError(`runMany: request ${index}: ${(error as Error).message}`);
      }
    });
    return Promise.all(requests.map((request) => this.run(request)));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all(this.slots.map((slot) => slot.stop()));
    await this.cleanup();
  }
}

/** Probes bubblewrap and applies the isolation policy: refuse, or fall back with a loud warning. */
async function chooseIsolation(
  mode: IsolationMode,
  bwrapPath: string,
  layout: BwrapLayout,
): Promise<'bwrap' | 'none'> {
  if (mode === 'none') {
    loudWarning("isolation: 'none' was requested");
    return 'none';
  }
  const problem = await probeBwrap(bwrapPath, layout);
  if (problem === null) return 'bwrap';
  if (mode === 'preferred') {
    loudWarning(`bubblewrap is unavailable: ${problem}`);
    return 'none';
  }
  throw new Error(
    `@taorl/sandbox: refusing to start without isolation: ${problem}. Install bubblewrap (and allow user ` +
      "namespaces when not root), or pass isolation: 'preferred' or 'none' to run code unisolated.",
  );
}

/**
 * Why the local backend cannot isolate code here with these options (no interpreter at `pythonPath`, bubblewrap
 * missing or refused), or null when it can: what `createSandbox` with `isolation: 'required'` would refuse for.
 * Probes as the start does (a bubblewrap run of the interpreter), and starts nothing else.
 */
export async function localIsolationProblem(options: LocalSandboxOptions = {}): Promise<string | null> {
  let resolved: ReturnType<typeof resolveLocalOptions>;
  try {
    resolved = resolveLocalOptions(options);
    checkPythonPath(resolved.pythonPath);
  } catch (error) {
    return (error as Error).message;
  }
  const { pythonPath, bwrapPath, readOnlyPaths, scratchMb } = resolved;
  const asRoot = process.getuid?.() === 0;
  return probeBwrap(bwrapPath, { pythonPath, readOnlyPaths, scratchBytes: scratchMb * 1024 * 1024, asRoot });
}

/** Starts the local backend: probes isolation, starts the pool, waits until every worker has its preloads. */
export async function createLocalSandbox(options: LocalSandboxOptions = {}): Promise<LocalSandbox> {
  const {
    pythonPath,
    bwrapPath,
    isolation: isolationMode,
    mode,
    workers,
    limits,
    preload,
    warmup,
    uidBase: chosenUidBase,
    scratchMb,
    readOnlyPaths,
    startupTimeoutMs,
    watchdogGraceMs,
  } = resolveLocalOptions(options);
  checkPythonPath(pythonPath);
  const asRoot = process.getuid?.() === 0;
  const layout = { pythonPath, readOnlyPaths, scratchBytes: scratchMb * 1024 * 1024, asRoot };

  const isolation = await chooseIsolation(isolationMode, bwrapPath, layout);
  const scratchDirs: string[] = [];
  // Only root can move the runs into cgroups (and give them a uid of their own).
  const memory = asRoot ? createMemoryCgroups(workers) : { reason: 'not running as root' };
  if ('reason' in memory) warnMemoryPerProcess(memory.reason);
  const command = (uid: number | null, scratch: string, cgroup: string | undefined): WorkerCommand => {
    const isolated = isolation === 'bwrap';
    const memoryCgroup =
      cgroup === undefined || 'reason' in memory
        ? null
        : { version: memory.version, path: isolated ? SANDBOX_CGROUP : cgroup };
    const config = JSON.stringify({
      scratch,
      uid,
      memoryCgroup,
      writableRoot: isolated
        ? { shm: SANDBOX_SHM, root: ROOT_LINKS_DIRECTORY, names: linkedRootNames(layout) }
        : null,
      ownPidNamespace: isolation === 'bwrap',
      // Without root the code cannot get a uid of its own; a pid namespace per run hides the worker from it.
      nestedPidNamespace: isolation === 'bwrap' && uid === null,
      preload,
      warmup,
      // A pool worker keeps the next run's child forked and set up while a run executes; a spawned one serves one.
      childrenAhead: mode === 'fork' ? 2 : 1,
    });
    const python = [pythonPath, '-I', '-B', '-c', pythonProgram('worker'), config];
    return withLargeStackLimit(
      isolated
        ? {
            command: bwrapPath,
            args: [...bwrapArgs(memoryCgroup ? { ...layout, memoryCgroup: cgroup } : layout), ...python],
            env: WORKER_ENV,
          }
        : { command: pythonPath, args: python.slice(1), env: WORKER_ENV },
    );
  };
  const uidBase = chosenUidBase ?? defaultUidBase() + uidsTaken;
  if (chosenUidBase === undefined) uidsTaken = (uidsTaken + workers) % UIDS_PER_PROCESS;
  const slots = Array.from({ length: workers }, (_, index) => {
    const uid = asRoot ? uidBase + index : null;
    // Unisolated workers get a private host directory; isolated ones a tmpfs of their own at the same path.
    const scratch = isolation === 'bwrap' ? SANDBOX_SCRATCH : mkdtempSync(join(tmpdir(), 'taorl-sandbox-'));
    if (isolation === 'none') scratchDirs.push(scratch);
    const cgroup = 'reason' in memory ? undefined : memory.seats[index];
    return new Slot(() => command(uid, scratch, cgroup), startupTimeoutMs, watchdogGraceMs, mode === 'fork');
  });
  const linked = new Set(isolation === 'bwrap' ? linkedRootNames(layout) : []);
  const pool = new LocalPool(slots, limits, isolation, memory, linked, async () => {
    for (const dir of scratchDirs) rmSync(dir, { recursive: true, force: true });
    if (!('reason' in memory)) await memory.remove();
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
