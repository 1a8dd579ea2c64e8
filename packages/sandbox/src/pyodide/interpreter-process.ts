import { type ChildProcess, fork } from 'node:child_process';
import { PYODIDE_WORKER_PATH } from '../pyodide-worker-path';

/** The messages pyodide/worker.mjs sends (its header describes the protocol). */
export type FromInterpreter =
  | { type: 'snapshot'; snapshot: Uint8Array; site: Uint8Array | null }
  | { type: 'ready' }
  | { type: 'output'; stream: 'stdout' | 'stderr'; data: Uint8Array }
  | {
      type: 'done';
      exitCode: number | null;
      files: { path: string; content: Uint8Array }[];
      /** The process loads a fresh interpreter for the next run (it was started with `reuse`, and the run left nothing scheduled). */
      reusable: boolean;
    }
  | { type: 'failed'; message: string };

const STDERR_KEPT = 4000;

/**
 * One Pyodide interpreter in a child process of its own (not a worker thread): Node starts it with
 * --disallow-code-generation-from-strings, which a worker thread cannot be given, so that no JavaScript reached
 * from Python compiles code; it has its own heap and an empty environment, and SIGKILL stops it whatever it runs.
 */
export class InterpreterProcess {
  private readonly child: ChildProcess;
  private stderrTail = '';
  private listener: ((message: FromInterpreter) => void) | null = null;
  private readonly exited: Promise<{ code: number | null; signal: string | null }>;

  constructor() {
    this.child = fork(PYODIDE_WORKER_PATH, [], {
      execArgv: ['--disallow-code-generation-from-strings'],
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      env: {},
    });
    this.child.stderr?.setEncoding('utf8');
    this.child.stderr?.on('data', (text: string) => {
      this.stderrTail = (this.stderrTail + text).slice(-STDERR_KEPT);
    });
    this.child.on('message', (message) => this.listener?.(message as FromInterpreter));
    this.exited = new Promise((resolve) => {
      this.child.on('exit', (code, signal) => resolve({ code, signal }));
      this.child.on('error', () => resolve({ code: null, signal: null }));
    });
  }

  /** Sends a message; false when the process is gone. */
  send(message: object): boolean {
    if (!this.child.connected) return false;
    this.child.send(message);
    return true;
  }

  /** The one listener of the messages from now on. */
  listen(listener: (message: FromInterpreter) => void): void {
    this.listener = listener;
  }

  /** Resolves when the process has exited: its exit code, or the signal that ended it. */
  whenExited(): Promise<{ code: number | null; signal: string | null }> {
    return this.exited;
  }

  /** What the process wrote to its stderr last (Node's own errors), for a sandbox_error's message. */
  get stderr(): string {
    return this.stderrTail;
  }

  kill(): void {
    this.child.kill('SIGKILL');
  }
}

/** Waits for the first message of `type`; rejects when the process fails, exits or takes `timeoutMs`. */
export function expectMessage<T extends FromInterpreter['type']>(
  process: InterpreterProcess,
  type: T,
  timeoutMs: number,
  what: string,
): Promise<Extract<FromInterpreter, { type: T }>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      process.kill();
      reject(new Error(`${what} took longer than ${timeoutMs} ms (startupTimeoutMs)`));
    }, timeoutMs);
    process.listen((message) => {
      if (message.type === type) {
        clearTimeout(timer);
        resolve(message as Extract<FromInterpreter, { type: T }>);
      } else if (message.type === 'failed') {
        clearTimeout(timer);
        process.kill();
        reject(new Error(`${what} failed: ${message.message}`));
      }
    });
    void process.whenExited().then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`${what}: the process exited (${signal ?? code}): ${process.stderr.slice(-500)}`));
    });
  });
}
