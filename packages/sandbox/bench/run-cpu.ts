// CPU time the local pool spends per call, independent of how busy the machine is: the worker's and its zygote's
// own CPU time plus that of every process they have reaped (the runs' children), read from /proc before and after 150
// back-to-back calls of a trivial snippet on one worker. Also the wall time per call (which does depend on the
// load). Another build of the package can be measured with SANDBOX_MODULE=<path to its src/index.ts>, or both in one
// run with SANDBOX_BEFORE=<path to the other build's src/index.ts>: the rounds then alternate between the two builds
// and the medians and their ratio are printed. Each build runs in a child process of its own that imports only it
// (support/build-arm.ts), and the run fails unless each arm imported the build it names. Run from the repository root (as root, where the pool runs as it does
// in training):
//   pnpm bench packages/sandbox/bench/run-cpu.ts
import type { LocalSandbox, LocalSandboxOptions } from '@taorl/sandbox';
import { type Arm, checkArms, isArmChild, serveArm, startArm } from './support/build-arm';
import { stat, workerAndZygote } from './support/pool-processes';

const CALLS = 150;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CODE = 'total = 0\nfor i in range(1, 2001):\n    total += i * i % 7\nprint(total)';
const TICKS_PER_SECOND = 100;

type CreateSandbox = (options: LocalSandboxOptions) => Promise<LocalSandbox>;
interface Round {
  cpu: number;
  wall: number;
}

/** utime + stime + cutime + cstime of a process, in ms. */
function cpuMs(pid: number): number {
  return (
    stat(pid)
      .slice(11, 15)
      .reduce((sum, value) => sum + value, 0) *
    (1000 / TICKS_PER_SECOND)
  );
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
if (isArmChild) {
  await serveArm((create) => measureRound(create as CreateSandbox));
} else {
  const builds = [
    ...(process.env.SANDBOX_BEFORE === undefined
      ? []
      : [{ label: 'before', module: process.env.SANDBOX_BEFORE }]),
    { label: 'this build', module: process.env.SANDBOX_MODULE ?? '@taorl/sandbox' },
  ];
  const arms = await Promise.all(
    builds.map(({ label, module }) => startArm<null, Round>(label, import.meta.filename, module)),
  );
  try {
    await compare(arms);
  } finally {
    for (const arm of arms) arm.close();
  }
}

async function compare(arms: Arm<null, Round>[]): Promise<void> {
  const measured = new Map(arms.map(({ label }) => [label, { cpu: [] as number[], wall: [] as number[] }]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const arm of round % 2 === 0 ? arms : [...arms].reverse()) {
      const { cpu, wall } = await arm.call(null);
      measured.get(arm.label)?.cpu.push(cpu);
      measured.get(arm.label)?.wall.push(wall);
      console.log(
        `round ${round + 1}, ${arm.label}: CPU ${cpu.toFixed(2)} ms/call, wall ${wall.toFixed(1)} ms/call`,
      );
    }
  }
  checkArms(arms);
  const medians = [...measured].map(([label, { cpu, wall }]) => ({
    label,
    cpu: median(cpu),
    wall: median(wall),
  }));
  for (const { label, cpu, wall } of medians) {
    console.log(`median, ${label}: CPU ${cpu.toFixed(2)} ms/call, wall ${wall.toFixed(1)} ms/call`);
  }
  if (medians.length === 2) {
    const [before, after] = medians as [(typeof medians)[number], (typeof medians)[number]];
    console.log(
      `this build / before: CPU ${(after.cpu / before.cpu).toFixed(2)}x, wall ${(after.wall / before.wall).toFixed(2)}x`,
    );
  }
}

/** CPU and wall time per call over CALLS back-to-back calls on a fresh one-worker pool. */
async function measureRound(createSandbox: CreateSandbox): Promise<Round> {
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
  const spent = (cpu() - before) / CALLS;
  await sandbox.close();
  return { cpu: spent, wall: wall / CALLS };
}
