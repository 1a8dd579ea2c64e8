import { endsWithMemoryError } from '../memory-error';
import type { ExecResult, ExecStatus } from '../types';

/** What the Python worker reports about one execution: raw facts, classified on this side. */
export interface WorkerReply {
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
  /** The wall clock ran out, or RLIMIT_CPU's hard limit killed code that ignored SIGXCPU. */
  timedOut: boolean;
  outputExceeded: boolean;
  /** The kernel killed a process of the run at the run's memory cgroup limit. */
  oomKilled: boolean;
  /** The child did not report a complete setup on its status channel (closed before the code runs). */
  setupFailed: boolean;
  durationMs: number;
  /** False when some process of the run survived the cleanup; the worker then exits and is replaced. */
  clean: boolean;
  /** The request's fetchFiles found as regular files after the run, base64. */
  files: { path: string; data: string }[];
}

/** Maps the worker's facts onto one status, in the precedence order documented on `ExecStatus`. */
export function classify(reply: WorkerReply): ExecStatus {
  if (reply.setupFailed) return 'sandbox_error';
  if (reply.outputExceeded) return 'output_limit';
  // RLIMIT_CPU's soft limit sends SIGXCPU; its hard limit, one second later, SIGKILL. Code that already ended in
  // a MemoryError ran out of memory: the clock ran out while it was ending (a busy machine).
  if (reply.timedOut || reply.signal === 'SIGXCPU')
    return endsWithMemoryError(reply.stderr) ? 'memory' : 'timeout';
  // A run that survives the loss of a process to the OOM killer (exit 0) is ok.
  const failed = reply.exitCode !== 0;
  if (failed && (reply.oomKilled || endsWithMemoryError(reply.stderr))) return 'memory';
  if (reply.signal !== null) return 'killed';
  return reply.exitCode === 0 ? 'ok' : 'error';
}

/** The reply as an ExecResult; `fetched`: whether the request named files to read back. */
export function toExecResult(reply: WorkerReply, fetched: boolean): ExecResult {
  const status = classify(reply);
  const result: ExecResult = {
    status,
    exitCode: reply.exitCode,
    signal: reply.signal,
    stdout: reply.stdout,
    stderr: reply.stderr,
    stdoutTruncated: reply.stdoutTruncated,
    stderrTruncated: reply.stderrTruncated,
    durationMs: reply.durationMs,
  };
  if (fetched) {
    result.files = reply.files.map((file) => ({
      path: file.path,
      content: new Uint8Array(Buffer.from(file.data, 'base64')),
    }));
  }
  if (status === 'sandbox_error')
    result.sandboxMessage = `sandbox setup failed in the child: ${reply.stderr.slice(-500)}`;
  return result;
}
