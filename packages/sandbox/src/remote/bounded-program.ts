import { pythonProgram } from '../python-programs';

/** What the submitted program bounds (python/sandboxfusion_program.py's `limits`). */
export interface ProgramLimits {
  /** Bytes of each stream sent through the server's pipes. */
  pipeBytes: number;
  /** Bytes of each stream written to its file; a stream that reaches it stops the cell. */
  keepBytes: number;
  /** The cell's address space (RLIMIT_AS). */
  memoryBytes: number;
}

/**
 * The files the program writes the cell's stdout and stderr to, fetched back with the run: the server's pipes carry
 * only `pipeBytes`, the files the whole output up to the local backend's cap.
 */
export const STREAM_FILES = {
  stdout: '.taorl-sandboxfusion-stdout',
  stderr: '.taorl-sandboxfusion-stderr',
} as const;

/**
 * The Python program the SandboxFusion backend submits for a cell: python/sandboxfusion_program.py (which says how
 * it bounds the output SandboxFusion would otherwise hang on) with the call that runs the request. The client asks
 * for one byte more than it keeps, so a longer stream is known to be cut, whatever the code prints.
 */
export function boundedProgram(code: string, replay: readonly string[], limits: ProgramLimits): string {
  const request = Buffer.from(JSON.stringify({ code, replay }), 'utf8').toString('base64');
  const settings = JSON.stringify({
    pipe_bytes: limits.pipeBytes,
    keep_bytes: limits.keepBytes,
    memory_bytes: limits.memoryBytes,
    stdout_file: STREAM_FILES.stdout,
    stderr_file: STREAM_FILES.stderr,
  });
  return `${pythonProgram('sandboxfusion_program')}\n\nmain(${settings}, "${request}")\n`;
}
