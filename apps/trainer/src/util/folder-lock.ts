import { linkSync, mkdirSync, readFileSync, rmdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';

/** The lock file a writing command keeps in its output folder while it runs. */
export const LOCK_FILE = '.taorl.lock';

/** Who holds a folder: written into the lock file. */
interface LockHolder {
  pid: number;
  host: string;
  /** When the holder started, ISO 8601. */
  started: string;
  /** The command line, for the message a second writer gets. */
  command: string;
  /** The holder's start time in clock ticks since boot (Linux), so a reused pid is not taken for the holder. */
  processStart: string | null;
}

/** A folder this process holds until `release` (or its exit). */
export interface FolderLock {
  readonly path: string;
  release(): void;
}

/** Field 22 of /proc/<pid>/stat (start time since boot), or null where there is no /proc or no such process. */
function processStart(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses; the fields after its last ')' are plain.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** True when the holder is known to be gone: a process of this host that no longer runs (or whose pid was reused). */
function isStale(holder: LockHolder): boolean {
  if (holder.host !== hostname()) return false;
  if (!alive(holder.pid)) return true;
  const start = processStart(holder.pid);
  return holder.processStart !== null && start !== null && start !== holder.processStart;
}

function readHolder(path: string): LockHolder | null {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as LockHolder;
  } catch {
    return null;
  }
}

const describeHolder = (holder: LockHolder) =>
  `${holder.command} (pid ${holder.pid} on ${holder.host}, started ${holder.started})`;

const inUse = (dir: string, holder: LockHolder | null) =>
  new Error(
    `${dir} is in use by ${holder === null ? 'another process (unreadable lock)' : describeHolder(holder)}: ` +
      'two runs must not write one folder; wait for it to end or choose another folder (if that process is ' +
      `gone, delete ${join(dir, LOCK_FILE)})`,
  );

/** Signals that end a process by default: Node then runs no 'exit' handlers. */
const ENDING_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;

/** The release of every lock this process holds. */
const held = new Set<() => void>();

/**
 * Listens while a lock is held. When nothing else listens for the signal, the locks are released and the signal is
 * raised again with no listener left, so the process still ends by it. When something else does (a server
 * draining, `TiedChildren` ending its children), that decides, and the process's exit releases the locks.
 */
function onEndingSignal(signal: NodeJS.Signals): void {
  if (process.listenerCount(signal) > 1) return;
  for (const release of [...held]) release();
  process.kill(process.pid, signal);
}

function hold(release: () => void): void {
  if (held.size === 0) for (const signal of ENDING_SIGNALS) process.on(signal, onEndingSignal);
  held.add(release);
}

function unhold(release: () => void): void {
  held.delete(release);
  if (held.size === 0) for (const signal of ENDING_SIGNALS) process.off(signal, onEndingSignal);
}

/** Removes `dir` and its parents up to `top` while they are empty. */
function removeEmptyFolders(dir: string, top: string): void {
  for (let folder = dir; ; folder = dirname(folder)) {
    try {
      rmdirSync(folder);
    } catch {
      return;
    }
    if (folder === top) return;
  }
}

/**
 * Takes `<dir>/.taorl.lock` (creating `dir`) for this process, or throws naming the folder and the process that
 * holds it. The lock file appears whole or not at all (written aside, then hard-linked into place, which fails when
 * one exists), so two commands started at the same instant cannot both take it. A lock whose holder is gone (a
 * crash, kill -9: its pid no longer runs on this host, or now belongs to a later process) is taken over with a
 * notice to `warn`. Released by `release()`, when the process exits (process.exit included) and when SIGTERM,
 * SIGINT or SIGHUP ends it (`onEndingSignal`); kill -9 leaves it behind, stale. Holders on another host (a shared
 * file system) are never presumed gone. Folders it created are removed on release if the command left them empty
 * (a command that failed early).
 */
export function lockFolder(dir: string, command: string, warn: (notice: string) => void): FolderLock {
  const created = mkdirSync(dir, { recursive: true });
  const path = join(dir, LOCK_FILE);
  const holder: LockHolder = {
    pid: process.pid,
    host: hostname(),
    started: new Date().toISOString(),
    command,
    processStart: processStart(process.pid),
  };
  const draft = `${path}.${process.pid}-${Date.now()}`;
  writeFileSync(draft, `${JSON.stringify(holder)}\n`);
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        linkSync(draft, path);
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const inode = statSync(path, { throwIfNoEntry: false })?.ino;
      const found = readHolder(path);
      if (found !== null && isStale(found) && attempt < 3) {
        // Removed only if it is still the stale file read above: another process may have replaced it meanwhile.
        if (statSync(path, { throwIfNoEntry: false })?.ino === inode) rmSync(path, { force: true });
        warn(`${path}: took over the lock of ${describeHolder(found)}, which is no longer running`);
        continue;
      }
      if (found === null && inode === undefined && attempt < 3) continue;
      throw inUse(dir, found);
    }
  } finally {
    rmSync(draft, { force: true });
  }
  const release = () => {
    process.off('exit', release);
    unhold(release);
    const current = readHolder(path);
    if (current?.pid === holder.pid && current.started === holder.started) rmSync(path, { force: true });
    if (created !== undefined) removeEmptyFolders(dir, created);
  };
  process.on('exit', release);
  hold(release);
  return { path, release };
}
