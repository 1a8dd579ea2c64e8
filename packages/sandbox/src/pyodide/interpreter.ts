/** The messages pyodide/worker.mjs sends (its header describes the protocol). */
export type FromInterpreter =
  | { type: 'snapshot'; snapshot: Uint8Array; site: Uint8Array | null }
  /** `fresh`: loaded from the snapshot; else the interpreter of the last run, put back as it was when ready. */
  | { type: 'ready'; fresh: boolean }
  | { type: 'output'; stream: 'stdout' | 'stderr'; data: Uint8Array }
  | {
      type: 'done';
      exitCode: number | null;
      files: { path: string; content: Uint8Array }[];
      /**
       * The process serves the next run (it was started with `reuse`, and the run left nothing scheduled; a web
       * worker never does).
       */
      reusable: boolean;
    }
  | { type: 'failed'; message: string };

/** How an interpreter ended: its exit code, or the signal that ended it ('SIGKILL' when the host stopped it). */
export interface InterpreterExit {
  code: number | null;
  signal: string | null;
}

/**
 * One Pyodide interpreter running pyodide/worker.mjs where the host cannot reach into it: a child process (Node,
 * interpreter-process.ts) or a web worker (a browser, web-worker.ts). A web worker serves one run; a child process
 * may serve several, putting its interpreter back as it was before each (or loading a fresh one from the snapshot).
 */
export interface Interpreter {
  /** Sends a message; false when the interpreter is gone. */
  send(message: object): boolean;
  /** The one listener of the messages from now on. */
  listen(listener: (message: FromInterpreter) => void): void;
  /** Resolves when the interpreter has ended, on its own or by `kill`. */
  whenExited(): Promise<InterpreterExit>;
  /** What the interpreter's host reported last about it (Node's own errors, a worker's load error), for messages. */
  readonly stderr: string;
  /** Stops it at once, whatever it runs. */
  kill(): void;
}

/** Waits for the first message of `type`; rejects when the interpreter fails, exits or takes `timeoutMs`. */
export function expectMessage<T extends FromInterpreter['type']>(
  interpreter: Interpreter,
  type: T,
  timeoutMs: number,
  what: string,
): Promise<Extract<FromInterpreter, { type: T }>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      interpreter.kill();
      reject(new Error(`${what} took longer than ${timeoutMs} ms (startupTimeoutMs)`));
    }, timeoutMs);
    interpreter.listen((message) => {
      if (message.type === type) {
        clearTimeout(timer);
        resolve(message as Extract<FromInterpreter, { type: T }>);
      } else if (message.type === 'failed') {
        clearTimeout(timer);
        interpreter.kill();
        reject(new Error(`${what} failed: ${message.message}`));
      }
    });
    void interpreter.whenExited().then(({ code, signal }) => {
      clearTimeout(timer);
      reject(
        new Error(`${what}: the interpreter exited (${signal ?? code}): ${interpreter.stderr.slice(-500)}`),
      );
    });
  });
}
