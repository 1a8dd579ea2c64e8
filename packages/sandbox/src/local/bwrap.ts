import { spawn } from 'node:child_process';
import { existsSync, lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { dirname } from 'node:path';
import { WRITABLE_ROOT_NAMES } from '../limits';

/** Where the sandboxed worker sees its private, writable scratch directory. */
export const SANDBOX_SCRATCH = '/scratch';

/** A second tmpfs of the run's, for POSIX semaphores and shared memory (multiprocessing needs them). */
export const SANDBOX_SHM = '/dev/shm';

/** The directory in SANDBOX_SHM that the links of WRITABLE_ROOT_NAMES (../limits) point into. */
export const ROOT_LINKS_DIRECTORY = '.root';

/** Where the sandboxed worker sees its seat's memory cgroup, when it has one. */
export const SANDBOX_CGROUP = '/sys/fs/cgroup';

/** Host paths visible read-only inside the sandbox (symlinks such as /lib -> usr/lib are recreated). */
export const DEFAULT_READ_ONLY_PATHS = ['/usr', '/etc', '/lib', '/lib64', '/bin', '/sbin'];

/** Files masked with /dev/null even though the run's uid could not read them anyway. */
const MASKED_FILES = ['/etc/shadow', '/etc/gshadow'];

export interface BwrapLayout {
  pythonPath: string;
  readOnlyPaths: readonly string[];
  scratchBytes: number;
  /** Running as root: keep only the capabilities the worker needs to drop each run to its own uid. */
  asRoot: boolean;
  /** The seat's memory cgroup directory on the host, bound writable at SANDBOX_CGROUP (root-owned files). */
  memoryCgroup?: string;
}

/**
 * The capabilities a worker keeps as root, by number: setuid/setgid to drop each run to its uid; kill, chown and
 * the DAC overrides to clean up after it.
 */
const ROOT_WORKER_CAPABILITIES: Record<string, number> = {
  CHOWN: 0,
  DAC_OVERRIDE: 1,
  DAC_READ_SEARCH: 2,
  FOWNER: 3,
  KILL: 5,
  SETGID: 6,
  SETUID: 7,
};

function covered(path: string, roots: readonly string[]): boolean {
  return roots.some((root) => path === root || path.startsWith(`${root}/`));
}

/** The host paths bound read-only: the listed ones, plus the interpreter's prefix when outside them. */
function readOnlyBinds(layout: BwrapLayout): string[] {
  const paths = [...layout.readOnlyPaths];
  const python = realpathSync(layout.pythonPath);
  if (!covered(python, paths) && !covered(layout.pythonPath, paths)) paths.push(dirname(dirname(python)));
  return paths;
}

/** WRITABLE_ROOT_NAMES that no read-only path takes: those linked into the run's writable root. */
export function linkedRootNames(layout: BwrapLayout): string[] {
  const taken = new Set(readOnlyBinds(layout).map((path) => path.split('/')[1]));
  return WRITABLE_ROOT_NAMES.filter((name) => !taken.has(name));
}

/**
 * bubblewrap arguments for one worker: new network, pid, ipc, uts and cgroup namespaces; a read-only root
 * (`--remount-ro /`) holding only the listed host paths, a fresh /proc and /dev; a size-capped tmpfs scratch.
 */
export function bwrapArgs(layout: BwrapLayout): string[] {
  const args = ['--unshare-net', '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try'];
  // Without root, namespaces need a user namespace; as root we stay in the host's so the worker can setuid().
  if (!layout.asRoot) args.push('--unshare-user');
  args.push('--die-with-parent', '--new-session');
  const paths = readOnlyBinds(layout);
  for (const path of paths) {
    if (!existsSync(path)) continue;
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) args.push('--symlink', readlinkSync(path), path);
    else args.push('--ro-bind', path, path);
  }
  for (const file of MASKED_FILES) {
    if (covered(file, paths) && existsSync(file)) args.push('--ro-bind', '/dev/null', file);
  }
  args.push('--proc', '/proc', '--dev', '/dev');
  args.push('--size', String(layout.scratchBytes), '--perms', '1777', '--tmpfs', SANDBOX_SCRATCH);
  args.push('--size', String(layout.scratchBytes), '--perms', '1777', '--tmpfs', SANDBOX_SHM);
  for (const name of linkedRootNames(layout)) {
    args.push('--symlink', `${SANDBOX_SHM}/${ROOT_LINKS_DIRECTORY}/${name}`, `/${name}`);
  }
  if (layout.memoryCgroup !== undefined) args.push('--bind', layout.memoryCgroup, SANDBOX_CGROUP);
  args.push('--remount-ro', '/');
  // Unprivileged, capabilities exist only inside the user namespace: SYS_ADMIN lets the worker give each run a pid
  // namespace of its own (the run drops it at once).
  if (!layout.asRoot) args.push('--cap-add', 'CAP_SYS_ADMIN');
  if (layout.asRoot) {
    args.push('--cap-drop', 'ALL');
    for (const cap of Object.keys(ROOT_WORKER_CAPABILITIES)) args.push('--cap-add', `CAP_${cap}`);
  }
  return args;
}

/** The capability mask a worker may hold: as root the list above; without root, all (they exist only in its user
 * namespace, and the worker drops them for each run). */
function allowedCapabilities(layout: BwrapLayout): bigint {
  if (!layout.asRoot) return ~0n;
  return Object.values(ROOT_WORKER_CAPABILITIES).reduce((mask, bit) => mask | (1n << BigInt(bit)), 0n);
}

/** Runs `python -c` inside bubblewrap once; resolves null when isolation works, else the reason it does not. */
export function probeBwrap(bwrapPath: string, layout: BwrapLayout): Promise<string | null> {
  let args: string[];
  try {
    // The probe reports the capabilities it runs with: bubblewrap 0.8 asked to add one the host's bounding set
    // lacks keeps every capability instead (seen with CAP_SYS_RESOURCE), so the set is checked, not assumed.
    const probe = 'print("isolated", open("/proc/self/status").read().split("CapEff:")[1].split()[0])';
    args = [...bwrapArgs(layout), layout.pythonPath, '-c', probe];
  } catch (error) {
    return Promise.resolve(`cannot prepare the sandbox layout: ${(error as Error).message}`);
  }
  return new Promise((resolve) => {
    const child = spawn(bwrapPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve(`cannot run ${bwrapPath}: ${error.message}`);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      const [word, capabilities] = output.trim().split(' ');
      if (code !== 0 || word !== 'isolated' || capabilities === undefined) {
        resolve(`${bwrapPath} failed (exit ${code}): ${output.trim()}`);
        return;
      }
      const extra = BigInt(`0x${capabilities}`) & ~allowedCapabilities(layout);
      resolve(
        extra === 0n
          ? null
          : `${bwrapPath} left the sandbox capabilities it was told to drop (CapEff ${capabilities}, ` +
              `unexpected 0x${extra.toString(16)})`,
      );
    });
  });
}
