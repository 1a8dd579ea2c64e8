/**
 * How one execution ended. Exactly one applies, checked in this order:
 * - `sandbox_error`: the sandbox itself failed (worker crash, bad setup, transport, a refused request); never the
 *   code's fault. The one infrastructure status, also @taorl/data's tool-call status and @taorl/filter's outage.
 * - `output_limit`: stdout or stderr went past `maxOutputBytes`; the code was stopped there.
 * - `timeout`: the wall-clock (`timeoutMs`) or CPU-time (`cpuTimeMs`) limit was reached, unless stderr already
 *   ends with an uncaught MemoryError (then `memory`: the clock ran out while the code was ending).
 * - `memory`: the code ran out of its address-space budget (`memoryMb`).
 * - `killed`: the code's process died of a signal it brought on itself (segfault, abort, self-kill).
 * - `error`: it exited with a non-zero code (an uncaught exception, `sys.exit(1)`).
 * - `ok`: exit code 0 within all limits.
 */
export type ExecStatus = 'ok' | 'error' | 'timeout' | 'memory' | 'output_limit' | 'killed' | 'sandbox_error';

/** Every status, in the order above; handy for tables and validation. */
export const EXEC_STATUSES: readonly ExecStatus[] = [
  'ok',
  'error',
  'timeout',
  'memory',
  'output_limit',
  'killed',
  'sandbox_error',
];

/** A file placed in the scratch directory before the code runs; `path` is relative to it. */
export interface SandboxFile {
  path: string;
  content: string | Uint8Array;
}

/** One snippet to execute. Limits left out take the sandbox's defaults (see `ExecLimits`). */
export interface ExecRequest {
  code: string;
  /** Text fed to the program's standard input. */
  stdin?: string;
  /** Wall-clock limit. */
  timeoutMs?: number;
  /** CPU-time limit of each process (RLIMIT_CPU, whole seconds, rounded up). */
  cpuTimeMs?: number;
  /** Address-space limit of each process (RLIMIT_AS), including the preloaded interpreter. */
  memoryMb?: number;
  files?: readonly SandboxFile[];
  /**
   * Files to read back after the run, as paths relative to the scratch directory (the form of `files`). Those that
   * exist as regular files when the run has ended come back in `ExecResult.files`, at most `maxFileBytes` each.
   */
  fetchFiles?: readonly string[];
  /**
   * Earlier cells of the same trajectory, re-run silently before `code` so their variables exist (stateful
   * sessions without a long-lived interpreter). Their output is discarded and their failures ignored; their
   * running time counts against this call's limits.
   */
  session?: readonly string[];
}

/** The outcome of one execution. */
export interface ExecResult {
  status: ExecStatus;
  /** The process's exit code, or null when it died of a signal or never ran. */
  exitCode: number | null;
  /** The signal that ended the process (e.g. "SIGKILL", "SIGSEGV"), or null. */
  signal: string | null;
  stdout: string;
  stderr: string;
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
  /** Wall time of the execution as measured by the sandbox (excludes waiting for a free worker). */
  durationMs: number;
  /** For `sandbox_error`: what failed, for logs. */
  sandboxMessage?: string;
  /**
   * The request's `fetchFiles` that existed as regular files after the run, in the request's order (a missing one,
   * a directory or a link is left out). Absent when the request named none.
   */
  files?: FetchedFile[];
}

/** A file read back from the scratch directory after a run. */
export interface FetchedFile {
  path: string;
  content: Uint8Array;
}

/** Runs code. Every backend implements this; `createSandbox` returns one. */
export interface Sandbox {
  /** The registered backend name ('local', 'sandboxfusion', ...). */
  readonly backend: string;
  /** Executes one request. Never rejects because of the code: failures of the code are statuses. */
  run(request: ExecRequest): Promise<ExecResult>;
  /** Executes many requests with bounded concurrency; results come back in request order. */
  runMany(requests: readonly ExecRequest[]): Promise<ExecResult[]>;
  /** Stops every worker and releases resources. Later calls reject. */
  close(): Promise<void>;
}
