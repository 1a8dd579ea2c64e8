import { accessSync, constants } from 'node:fs';
import { availableParallelism } from 'node:os';
import { isAbsolute } from 'node:path';
import { type ExecLimits, resolveLimits } from '../limits';
import { integerIn, MAX_TIMER_MS, MAX_WORKERS } from '../ranges';
import { rejectUnknownFields } from '../unknown-fields';
import { DEFAULT_READ_ONLY_PATHS } from './bwrap';
import { defaultWarmup } from './warmup';

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
  /** Pool size = the most executions at once, 1 to 256 (MAX_WORKERS). Default: available CPUs, at most 8. */
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
  /**
   * How long past a call's `timeoutMs` the worker may take to answer (its cleanup takes up to 2 s) before it
   * counts as hung: it is killed and replaced, the call is a `sandbox_error`. Default 5000.
   */
  watchdogGraceMs?: number;
}

/** The options with defaults filled in and every field checked. */
export interface ResolvedLocalOptions {
  pythonPath: string;
  bwrapPath: string;
  isolation: IsolationMode;
  mode: 'fork' | 'spawn';
  workers: number;
  limits: ExecLimits;
  preload: string[];
  warmup: string;
  uidBase: number | undefined;
  scratchMb: number;
  readOnlyPaths: readonly string[];
  startupTimeoutMs: number;
  watchdogGraceMs: number;
}

const MAX_UID = 2 ** 32 - 2;

function fail(field: string, expected: string, got: unknown): never {
  throw new TypeError(
    `createSandbox: ${field} must be ${expected}, got ${JSON.stringify(got) ?? String(got)}`,
  );
}

const positiveInteger = (value: unknown, field: string, fallback: number, max?: number): number =>
  integerIn(value, fallback, field, 'createSandbox', max === undefined ? { min: 1 } : { min: 1, max });

function oneOf<T extends string>(value: unknown, field: string, allowed: readonly T[]): T {
  if (!allowed.includes(value as T)) fail(field, allowed.map((item) => `'${item}'`).join(' or '), value);
  return value as T;
}

/**
 * Checks that the interpreter exists, at start rather than in the options' check: a machine without python3 is
 * not a wrong configuration (the trainer gives way to the pyodide backend there).
 */
export function checkPythonPath(pythonPath: string): void {
  try {
    accessSync(pythonPath, constants.X_OK);
  } catch {
    fail('pythonPath', 'an executable file', pythonPath);
  }
}

/** Checks the local backend's options field by field and fills in the defaults. */
const LOCAL_OPTIONS: readonly (keyof LocalSandboxOptions | 'backend')[] = [
  'backend',
  'pythonPath',
  'bwrapPath',
  'isolation',
  'workers',
  'preload',
  'warmup',
  'mode',
  'limits',
  'uidBase',
  'scratchMb',
  'readOnlyPaths',
  'startupTimeoutMs',
  'watchdogGraceMs',
];

export function resolveLocalOptions(options: LocalSandboxOptions): ResolvedLocalOptions {
  if (options === null || typeof options !== 'object') fail('its options', 'an object', options);
  rejectUnknownFields(options, LOCAL_OPTIONS, 'createSandbox');
  const pythonPath = options.pythonPath ?? '/usr/bin/python3';
  if (typeof pythonPath !== 'string') fail('pythonPath', 'a path', pythonPath);
  const mode = oneOf(options.mode ?? 'fork', 'mode', ['fork', 'spawn'] as const);
  const workers = positiveInteger(
    options.workers,
    'workers',
    Math.min(8, availableParallelism()),
    MAX_WORKERS,
  );
  const preload = mode === 'spawn' ? [] : [...(options.preload ?? ['sympy', 'numpy'])];
  if (preload.some((name) => typeof name !== 'string' || !/^[A-Za-z_][\w.]*$/.test(name))) {
    fail('preload', 'an array of module names', options.preload);
  }
  const warmup = mode === 'spawn' ? '' : (options.warmup ?? defaultWarmup(preload));
  if (typeof warmup !== 'string') fail('warmup', 'a string of Python code', warmup);
  const uidBase = options.uidBase;
  if (uidBase !== undefined && positiveInteger(uidBase, 'uidBase', 1) + workers > MAX_UID) {
    fail('uidBase', `at most ${MAX_UID} - workers`, uidBase);
  }
  const readOnlyPaths = options.readOnlyPaths ?? DEFAULT_READ_ONLY_PATHS;
  if (
    !Array.isArray(readOnlyPaths) ||
    readOnlyPaths.some((path) => typeof path !== 'string' || !isAbsolute(path))
  ) {
    fail('readOnlyPaths', 'an array of absolute paths', readOnlyPaths);
  }
  return {
    pythonPath,
    bwrapPath: options.bwrapPath ?? 'bwrap',
    isolation: oneOf(options.isolation ?? 'required', 'isolation', [
      'required',
      'preferred',
      'none',
    ] as const),
    mode,
    workers,
    limits: resolveLimits(options.limits, 'createSandbox limits'),
    preload,
    warmup,
    uidBase,
    scratchMb: positiveInteger(options.scratchMb, 'scratchMb', 256),
    readOnlyPaths,
    startupTimeoutMs: positiveInteger(options.startupTimeoutMs, 'startupTimeoutMs', 60_000, MAX_TIMER_MS),
    watchdogGraceMs: positiveInteger(options.watchdogGraceMs, 'watchdogGraceMs', 5000, MAX_TIMER_MS),
  };
}
