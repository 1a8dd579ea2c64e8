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

export const isRoot = process.getuid?.() === 0;
