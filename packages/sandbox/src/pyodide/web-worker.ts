/// <reference lib="dom" />
import type { FromInterpreter, Interpreter, InterpreterExit } from './interpreter';

/**
 * One Pyodide interpreter in a web worker of its own (a browser): its own heap and global scope, and `terminate`
 * stops it whatever it runs. A stop by the host reads as the signal 'SIGKILL', as Node's child process gives.
 */
export class WebWorkerInterpreter implements Interpreter {
  private readonly worker: Worker;
  private listener: ((message: FromInterpreter) => void) | null = null;
  private problem = '';
  private ended: ((exit: InterpreterExit) => void) | null = null;
  private readonly exited: Promise<InterpreterExit>;
  private alive = true;

  /** `scriptURL`: the worker script (pyodide/worker.mjs), run as a module. */
  constructor(scriptURL: string) {
    this.exited = new Promise((resolve) => {
      this.ended = resolve;
    });
    this.worker = new Worker(scriptURL, { type: 'module' });
    this.worker.addEventListener('message', (event: MessageEvent<FromInterpreter>) =>
      this.listener?.(event.data),
    );
    // An uncaught error of the worker's own (its script failed to load or to parse): it serves nothing more.
    this.worker.addEventListener('error', (event: ErrorEvent) => {
      event.preventDefault();
      this.problem = `the worker script failed: ${event.message || 'it did not load'}`;
      this.end({ code: 1, signal: null });
    });
  }

  private end(exit: InterpreterExit): void {
    if (!this.alive) return;
    this.alive = false;
    this.worker.terminate();
    this.ended?.(exit);
  }

  send(message: object): boolean {
    if (!this.alive) return false;
    this.worker.postMessage(message);
    return true;
  }

  listen(listener: (message: FromInterpreter) => void): void {
    this.listener = listener;
  }

  whenExited(): Promise<InterpreterExit> {
    return this.exited;
  }

  get stderr(): string {
    return this.problem;
  }

  kill(): void {
    this.end({ code: null, signal: 'SIGKILL' });
  }
}
