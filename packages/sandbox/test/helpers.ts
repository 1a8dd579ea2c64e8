import { readdirSync, readFileSync } from 'node:fs';

/** A uid block of its own for each test file, so RLIMIT_NPROC and leftover checks see only this file's runs. */
export function privateUidBase(): number {
  return 1_500_000_000 + Math.floor(Math.random() * 100_000) * 64;
}

/** Host pids of live (non-zombie) processes whose real uid lies in [first, first + count). */
export function processesOfUids(first: number, count: number): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let status: string;
    try {
      status = readFileSync(`/proc/${entry}/status`, 'utf8');
    } catch {
      continue;
    }
    const uid = Number(/^Uid:\s+(\d+)/m.exec(status)?.[1]);
    const state = /^State:\s+(\S)/m.exec(status)?.[1];
    if (uid >= first && uid < first + count && state !== 'Z') found.push(Number(entry));
  }
  return found;
}

/** Waits until no live process of the uid range is left (processes of a killed worker die asynchronously). */
export async function processesGone(first: number, count: number, patienceMs = 10_000): Promise<number[]> {
  const until = Date.now() + patienceMs;
  let left = processesOfUids(first, count);
  while (left.length > 0 && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    left = processesOfUids(first, count);
  }
  return left;
}

/** Waits until some process of the uid range exists, i.e. a run has started. */
export async function processStarted(first: number, count: number, patienceMs = 20_000): Promise<boolean> {
  const until = Date.now() + patienceMs;
  while (Date.now() < until) {
    if (processesOfUids(first, count).length > 0) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return false;
}

/** The parent pid of a live process. */
export function parentPid(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

/** Host pids of all descendants of `root` whose command name is `name`. */
export function descendantsNamed(root: number, name: string): number[] {
  const parentOf = new Map<number, number>();
  const nameOf = new Map<number, string>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      nameOf.set(Number(entry), stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')));
      parentOf.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {}
  }
  const isBelow = (pid: number): boolean => {
    for (let parent = parentOf.get(pid); parent !== undefined && parent > 1; parent = parentOf.get(parent)) {
      if (parent === root) return true;
    }
    return false;
  };
  return [...nameOf].filter(([pid, command]) => command === name && isBelow(pid)).map(([pid]) => pid);
}

/** Waits until `pid` has exited (gone, or a zombie waiting to be reaped). */
export async function processExited(pid: number, patienceMs = 10_000): Promise<boolean> {
  const until = Date.now() + patienceMs;
  for (;;) {
    let state: string | undefined;
    try {
      state = /^State:\s+(\S)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    } catch {
      return true;
    }
    if (state === 'Z') return true;
    if (Date.now() > until) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export const isRoot = process.getuid?.() === 0;
