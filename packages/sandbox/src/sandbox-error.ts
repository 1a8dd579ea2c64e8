import type { ExecResult } from './types';

/** The result of an execution the sandbox could not carry out; never blamed on the code. */
export function sandboxError(message: string, durationMs = 0): ExecResult {
  return {
    status: 'sandbox_error',
    exitCode: null,
    signal: null,
    stdout: '',
    stderr: '',
    stdoutTruncated: false,
    stderrTruncated: false,
    durationMs,
    sandboxMessage: message,
  };
}
