// CPU time the local pool spends per call, independent of how busy the machine is: the worker's and its zygote's
// own CPU time plus that of every process they have reaped (the runs' children), read from /proc before and after 150
// back-to-back calls of a trivial snippet on one worker. Also the wall time per call (which does depend on the
// load). Another build of the package can be measured with SANDBOX_MODULE=<path to its src/index.ts>. Run from the
// repository root (as root, where the pool runs as it does in training):
//   pnpm bench packages/sandbox/bench/run-cpu.ts
import { readdirSync, readFileSync } from 'node:fs';
import type { LocalSandbox, LocalSandboxOptions } from '@taorl/sandbox';

const CALLS = 150;
const ROUNDS = 3;
const CODE = 'total = 0\nfor i in range(1, 2001):\n    total += i * i % 7\nprint(total)';
const TICKS_PER_SECOND = 100;

const { createSandbox } = (await import(process.env.SANDBOX_MODULE ?? '@taorl/sandbox')) as {
  createSandbox: (options: LocalSandboxOptions) => Promise<LocalSandbox>;
};

function parentOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

/** The Python worker (the python3 process whose parent is not python3, below the pool's bwrap process) and its
 * zygote (the python3 process whose parent is the worker), which reaps the runs' children. */
function workerAndZygote(bwrap: number): number[] {
  const below = (pid: number): boolean => {
    for (let parent = parentOf(pid); parent > 1; parent = parentOf(parent)) if (parent === bwrap) return true;
    return false;
  };
  const name = (pid: number) => readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
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

/** utime + stime + cutime + cstime of a process, in ms. */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return fields.slice(11, 15).reduce((sum, value) => sum + Number(value), 0) * (1000 / TICKS_PER_SECOND);
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
for (let round = 0; round < ROUNDS; round++) {
  const sandbox = await createSandbox({ workers: 1 });
  await sandbox.run({ code: CODE });
  await pause(300);
  const pythons = workerAndZygote(sandbox.workerPids()[0] as number);
  const cpu = () => pythons.reduce((sum, pid) => sum + cpuMs(pid), 0);
  const before = cpu();
  const started = performance.now();
  for (let call = 0; call < CALLS; call++) {
    const result = await sandbox.run({ code: CODE });
    if (result.status !== 'ok') throw new Error(`a call failed: ${JSON.stringify(result)}`);
  }
  const wall = performance.now() - started;
  await pause(300); // the last run's child is reaped
  console.log(
    `round ${round + 1}: CPU ${((cpu() - before) / CALLS).toFixed(2)} ms/call, wall ${(wall / CALLS).toFixed(1)} ms/call`,
  );
  await sandbox.close();
}
