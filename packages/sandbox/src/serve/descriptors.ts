import { readdirSync, readFileSync } from 'node:fs';

/** Descriptors a worker holds (its three pipes) and needs while it is replaced (their other ends, exec's pipe). */
const DESCRIPTORS_PER_WORKER = 16;
/** Descriptors kept for the rest of the process: Node's own, /proc reads for /metrics, a log file. */
const DESCRIPTORS_SPARE = 64;
/** The default cap when the descriptor limit is high (each open connection costs the server memory). */
export const CONNECTIONS_CAP = 16_384;

/** The process's soft RLIMIT_NOFILE and the descriptors open now; null where /proc cannot tell (not Linux). */
function descriptorUse(): { limit: number; open: number } | null {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((row) => row.startsWith('Max open files'));
    const soft = line?.slice('Max open files'.length).trim().split(/\s+/)[0];
    if (soft === undefined) return null;
    const limit = soft === 'unlimited' ? Number.POSITIVE_INFINITY : Number(soft);
    if (!Number.isFinite(limit) && limit !== Number.POSITIVE_INFINITY) return null;
    return { limit, open: readdirSync('/proc/self/fd').length };
  } catch {
    return null;
  }
}

/**
 * The most connections a server may hold open: what the descriptor limit leaves after the descriptors open now
 * and those the workers need (so that replacing a worker never finds the process out of descriptors), at most
 * CONNECTIONS_CAP. Throws when the limit leaves no room at all; `where` names the server in the error.
 */
export function defaultMaxConnections(workers: number, where = 'startSandboxServer'): number {
  const use = descriptorUse();
  if (use === null) return CONNECTIONS_CAP;
  const room = use.limit - use.open - DESCRIPTORS_PER_WORKER * workers - DESCRIPTORS_SPARE;
  if (room < 1) {
    throw new TypeError(
      `${where}: the file descriptor limit (${use.limit}, ${use.open} open) leaves no room for ` +
        `connections next to ${workers} workers; raise it (ulimit -n) or pass maxConnections`,
    );
  }
  return Math.min(room, CONNECTIONS_CAP);
}
