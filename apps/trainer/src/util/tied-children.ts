import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { constants } from 'node:os';

/** How long children get to end after a forwarded signal before they are killed. */
const GRACE_MS = 10_000;

const FORWARDED = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;
type Forwarded = (typeof FORWARDED)[number];

/** Signals a process group; one already gone is no error. */
function signalGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the group has ended.
  }
}

/**
 * Child processes that end with this one. Each starts as the leader of its own process group, so what it starts
 * (sandboxes, servers) is signalled with it. While one runs, SIGTERM, SIGINT and SIGHUP to this process are passed
 * to every group; once all have ended (SIGKILL after 10 s), this process exits with 128 + the signal's number, its
 * 'exit' handlers (folder locks) running. When this process exits any other way, the groups get SIGKILL. A SIGKILL
 * to this process cannot be passed on: its children then run to their end, their own folder locks refusing a rerun
 * into the same folders meanwhile.
 */
export class TiedChildren {
  readonly #live = new Set<ChildProcessWithoutNullStreams>();
  #ending: Forwarded | null = null;
  readonly #onSignal = (signal: Forwarded) => this.#end(signal);
  readonly #onExit = () => {
    for (const child of this.#live) signalGroup(child.pid, 'SIGKILL');
  };

  /** True once a signal asked this process to end: start no further children. */
  get ending(): boolean {
    return this.#ending !== null;
  }

  /** Starts `command` with piped stdio, tied to this process. */
  spawn(command: string, args: readonly string[]): ChildProcessWithoutNullStreams {
    if (this.#live.size === 0) {
      for (const signal of FORWARDED) process.on(signal, this.#onSignal);
      process.on('exit', this.#onExit);
    }
    const child = spawn(command, args, { stdio: 'pipe', detached: true });
    this.#live.add(child);
    const settle = () => {
      this.#live.delete(child);
      if (this.#live.size > 0) return;
      this.#stopListening();
      // After the child's other 'exit' handlers (its log's last line).
      const signal = this.#ending;
      if (signal !== null) setImmediate(() => process.exit(128 + constants.signals[signal]));
    };
    child.once('exit', settle);
    child.once('error', settle);
    return child;
  }

  #end(signal: Forwarded): void {
    if (this.#ending !== null) return;
    this.#ending = signal;
    for (const child of this.#live) signalGroup(child.pid, signal);
    setTimeout(() => {
      for (const child of this.#live) signalGroup(child.pid, 'SIGKILL');
    }, GRACE_MS).unref();
  }

  #stopListening(): void {
    for (const signal of FORWARDED) process.off(signal, this.#onSignal);
    process.off('exit', this.#onExit);
  }
}
