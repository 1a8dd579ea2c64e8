import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { threadId } from 'node:worker_threads';

/**
 * Where a run's memory is bounded as a whole: a memory cgroup per pool seat, which each run's child enters before
 * it drops its privileges, so that all the processes of a run together get `memoryMb`. cgroup v2 (`memory.max`,
 * `memory.events`) or a v1 memory hierarchy (`memory.limit_in_bytes`, `memory.oom_control`).
 */
export interface MemoryCgroups {
  version: 1 | 2;
  /** One directory per seat, on the host. */
  seats: string[];
  /** Removes the seats' directories, waiting up to 2 s for their processes to be gone. */
  remove(): Promise<void>;
}

/** The memory controller's hierarchy that holds this process: the cgroup's directory and the version. */
export interface MemoryHierarchy {
  version: 1 | 2;
  directory: string;
}

interface Mount {
  root: string;
  point: string;
  type: string;
  superOptions: string[];
}

function mounts(mountinfo: string): Mount[] {
  return mountinfo
    .split('\n')
    .filter((line) => line.includes(' - '))
    .map((line) => {
      const [before, after] = line.split(' - ') as [string, string];
      const fields = before.split(' ');
      const [type = '', , superOptions = ''] = after.split(' ');
      const decodeOctal = (path: string) =>
        path.replace(/\\(\d{3})/g, (_, octal) => String.fromCharCode(Number.parseInt(octal, 8)));
      return {
        root: decodeOctal(fields[3] ?? ''),
        point: decodeOctal(fields[4] ?? ''),
        type,
        superOptions: superOptions.split(','),
      };
    });
}

function under(mount: Mount, path: string): string | null {
  if (mount.root === '/') return join(mount.point, path);
  if (path === mount.root || path.startsWith(`${mount.root}/`))
    return join(mount.point, path.slice(mount.root.length));
  return null;
}

/**
 * Finds this process's memory cgroup from /proc/self/cgroup and /proc/self/mountinfo: a v1 hierarchy with the
 * memory controller when one is mounted (hybrid systems bind memory there), else the v2 unified one.
 */
export function findMemoryHierarchy(
  procCgroup: string,
  mountinfo: string,
): MemoryHierarchy | { reason: string } {
  const all = mounts(mountinfo);
  const lines = procCgroup
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const first = line.indexOf(':');
      const second = line.indexOf(':', first + 1);
      return { controllers: line.slice(first + 1, second).split(','), path: line.slice(second + 1) };
    });
  const v1 = lines.find((line) => line.controllers.includes('memory'));
  if (v1) {
    const mount = all.find((m) => m.type === 'cgroup' && m.superOptions.includes('memory'));
    const directory = mount && under(mount, v1.path);
    return directory ? { version: 1, directory } : { reason: 'the v1 memory hierarchy is not mounted here' };
  }
  const v2 = lines.find((line) => line.controllers.length === 1 && line.controllers[0] === '');
  const mount = all.find((m) => m.type === 'cgroup2');
  const directory = v2 && mount && under(mount, v2.path);
  return directory
    ? { version: 2, directory }
    : { reason: 'no cgroup hierarchy with a memory controller is mounted' };
}

const read = (path: string) => readFileSync(path, 'utf8');

/** The reason seats cannot be created below a v2 cgroup, or null when its children get the memory controller. */
function v2MemoryDelegation(directory: string): string | null {
  if (!read(join(directory, 'cgroup.controllers')).split(/\s+/).includes('memory')) {
    return `the memory controller is not enabled for ${directory}`;
  }
  if (read(join(directory, 'cgroup.subtree_control')).split(/\s+/).includes('memory')) return null;
  try {
    writeFileSync(join(directory, 'cgroup.subtree_control'), '+memory');
    return null;
  } catch (error) {
    // EBUSY: the cgroup holds processes (this one), and cgroup v2 gives controllers only to cgroups without any.
    return `cannot enable the memory controller below ${directory} (${(error as NodeJS.ErrnoException).code}): run the host process in a cgroup whose subtree may use it`;
  }
}

let seatsCreated = 0;
const SEAT_NAME = /^taorl-sandbox-(\d+)-\d+-\d+$/;

/**
 * Removes the seats a host process left when it ended without closing its sandbox (killed, or exiting without
 * `close()`): empty cgroups whose creator's pid no longer exists. A seat of a live process, or one still holding
 * processes, stays.
 */
export function removeStaleSeats(directory: string): void {
  for (const name of readdirSync(directory)) {
    const creator = SEAT_NAME.exec(name)?.[1];
    if (creator === undefined || existsSync(`/proc/${creator}`)) continue;
    try {
      rmdirSync(join(directory, name));
    } catch {
      // Busy (processes still inside) or gone already: left for a later sweep.
    }
  }
}

/**
 * Creates one memory cgroup per seat below this process's own, or says why it cannot (not root, no writable
 * hierarchy, no memory controller, v2 rules). Never throws.
 */
export function createMemoryCgroups(seats: number): MemoryCgroups | { reason: string } {
  if (process.getuid?.() !== 0) return { reason: 'only root may create cgroups for the runs' };
  let found: MemoryHierarchy | { reason: string };
  try {
    found = findMemoryHierarchy(read('/proc/self/cgroup'), read('/proc/self/mountinfo'));
  } catch (error) {
    return { reason: `cannot read this process's cgroup: ${(error as Error).message}` };
  }
  if ('reason' in found) return found;
  const { version, directory } = found;
  const created: string[] = [];
  const remove = async () => {
    // A killed worker's processes die asynchronously; a cgroup with processes cannot be removed (EBUSY).
    for (let attempt = 0; created.length > 0 && attempt < 40; attempt++) {
      if (attempt > 0) await sleep(50);
      for (const seat of created.splice(0)) {
        try {
          rmdirSync(seat);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'EBUSY') created.push(seat);
        }
      }
    }
  };
  try {
    if (version === 2) {
      const problem = v2MemoryDelegation(directory);
      if (problem) return { reason: problem };
    }
    removeStaleSeats(directory);
    for (let seat = 0; seat < seats; seat++) {
      // Unique per process and thread (each thread has its own count).
      const path = join(directory, `taorl-sandbox-${process.pid}-${threadId}-${seatsCreated++}`);
      mkdirSync(path);
      created.push(path);
      // Root's only: its counters (peak usage, OOM kills) outlive a run, and a later run must not read them.
      chmodSync(path, 0o700);
      // Without swap limited too, a bounded run could push the host's memory out to swap (v2 only; absent when
      // the kernel does not account swap).
      if (version === 2) {
        try {
          writeFileSync(join(path, 'memory.swap.max'), '0');
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        }
      }
    }
  } catch (error) {
    void remove();
    return { reason: `cannot create cgroups below ${directory}: ${(error as Error).message}` };
  }
  return { version, seats: [...created], remove };
}
