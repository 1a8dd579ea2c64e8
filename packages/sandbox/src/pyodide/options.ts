import { availableParallelism } from 'node:os';
import { type ExecLimits, resolveLimits } from '../limits';
import { rejectUnknownFields } from '../unknown-fields';

/** Where Debian's python3-sympy and python3-mpmath put their pure-Python files. */
export const DEBIAN_SITE_PACKAGES = '/usr/lib/python3/dist-packages';

export interface PyodideSandboxOptions {
  /** Runs at once, each in an interpreter of its own started ahead of its request. Default: CPUs, at most 8. */
  workers?: number;
  /**
   * Default limits of every execution; a request may override timeoutMs, cpuTimeMs and memoryMb. A run is one
   * thread: its wall clock and CPU time run together, so the smaller of the two stops it. `memoryMb` caps the
   * interpreter's WebAssembly memory (about 30 MB at start, 55 MB with sympy imported) and, apart, all its files
   * together. No processes exist, so `maxProcesses` does not apply.
   */
  limits?: Partial<ExecLimits>;
  /**
   * Pure-Python packages (top-level names) copied from `sitePackages` into every interpreter, compiled once.
   * Default: those of sympy and mpmath found there. A package with compiled extension modules (numpy) is refused:
   * there is no WebAssembly build of it installable from npm.
   */
  packages?: readonly string[];
  /** Folder holding `packages`. Default /usr/lib/python3/dist-packages (Debian's python3-sympy). */
  sitePackages?: string;
  /** Modules imported before the snapshot, so that no run pays for their import. Default ['sympy'] if packaged. */
  preload?: readonly string[];
  /** How long the snapshot (with the preloads' import) and each interpreter may take to start. Default 600 000. */
  startupTimeoutMs?: number;
}

export interface ResolvedPyodideOptions {
  workers: number;
  limits: ExecLimits;
  packages: string[];
  sitePackages: string;
  preload: string[];
  startupTimeoutMs: number;
}

const PYODIDE_OPTIONS: readonly (keyof PyodideSandboxOptions | 'backend')[] = [
  'backend',
  'workers',
  'limits',
  'packages',
  'sitePackages',
  'preload',
  'startupTimeoutMs',
];
const DEFAULT_PACKAGES = ['sympy', 'mpmath'];

function fail(field: string, expected: string, got: unknown): never {
  throw new TypeError(
    `createSandbox (pyodide): ${field} must be ${expected}, got ${JSON.stringify(got) ?? String(got)}`,
  );
}

function positiveInteger(value: unknown, field: string): number {
  if (!Number.isInteger(value) || (value as number) < 1) fail(field, 'a positive integer', value);
  return value as number;
}

function moduleNames(value: unknown, field: string): string[] {
  if (
    !Array.isArray(value) ||
    value.some((name) => typeof name !== 'string' || !/^[A-Za-z_]\w*$/.test(name))
  ) {
    fail(field, 'an array of top-level module names', value);
  }
  return [...value];
}

/**
 * Checks the pyodide backend's options field by field and fills in the defaults; `present` says whether a package
 * is in the site folder (the defaults take only those present).
 */
export function resolvePyodideOptions(
  options: PyodideSandboxOptions,
  present: (sitePackages: string, name: string) => boolean,
): ResolvedPyodideOptions {
  if (options === null || typeof options !== 'object') fail('its options', 'an object', options);
  rejectUnknownFields(options, PYODIDE_OPTIONS, 'createSandbox (pyodide)');
  const sitePackages = options.sitePackages ?? DEBIAN_SITE_PACKAGES;
  if (typeof sitePackages !== 'string') fail('sitePackages', 'a folder path', sitePackages);
  const packages =
    options.packages === undefined
      ? DEFAULT_PACKAGES.filter((name) => present(sitePackages, name))
      : moduleNames(options.packages, 'packages');
  const preload =
    options.preload === undefined
      ? packages.filter((name) => name === 'sympy')
      : moduleNames(options.preload, 'preload');
  return {
    workers: positiveInteger(options.workers ?? Math.min(8, availableParallelism()), 'workers'),
    limits: resolveLimits(options.limits, 'createSandbox (pyodide) limits'),
    packages,
    sitePackages,
    preload,
    startupTimeoutMs: positiveInteger(options.startupTimeoutMs ?? 600_000, 'startupTimeoutMs'),
  };
}
