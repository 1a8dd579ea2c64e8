// The processes of one local pool worker, found in /proc: the benches that read a worker's CPU time and page faults
// share this.
import { readdirSync, readFileSync } from 'node:fs';

/** /proc/<pid>/stat's fields after the command name: [1] the parent, [7] minflt, [8] cminflt, [11..14] the CPU times. */
export function stat(pid: number): number[] {
  const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return text
    .slice(text.lastIndexOf(')') + 2)
    .split(' ')
    .map(Number);
}

const parentOf = (pid: number) => stat(pid)[1] as number;
const name = (pid: number) => readFileSync(`/proc/${pid}/comm`, 'utf8').trim();

/** The Python worker (the python3 process whose parent is not python3, below the pool's bwrap process) and its
 * zygote (the python3 process whose parent is the worker), which reaps the runs' children. */
export function workerAndZygote(bwrap: number): [number, number] {
  const below = (pid: number) => {
    for (let parent = parentOf(pid); parent > 1; parent = parentOf(parent)) if (parent === bwrap) return true;
    return false;
  };
  const pythons = readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter((pid) => {
      try {
        return name(pid) === 'python3' && below(pid);
      } catch {
        return false;
      }
    });
  const worker = pythons.find((pid) => name(parentOf(pid)) !== 'python3');
  const zygote = pythons.find((pid) => parentOf(pid) === worker);
  if (worker === undefined || zygote === undefined)
    throw new Error('no Python worker and zygote found below the pool');
  return [worker, zygote];
}
