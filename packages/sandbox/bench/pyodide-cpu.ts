// CPU per call of the pyodide backend: what one fresh-state call costs the machine (the host process and its
// interpreter processes together, read from /proc, so Linux only), whatever else the machine runs. One process
// (`workers: 1`) with the default packages (sympy imported in the snapshot); each arm makes its sandbox, makes two
// calls, waits until its processes are idle, then makes BENCH_CALLS calls one after another and waits until idle
// again: the CPU between the two idle points, over the calls, includes what each call left for after its result
// (the next interpreter's load, or putting the interpreter back). Run from the repository root:
//   pnpm bench packages/sandbox/bench/pyodide-cpu.ts
// Knobs: BENCH_CALLS (20 per cell), SANDBOX_BEFORE=<another build's src/index.ts> adds that build's pyodide backend
// as a "before" arm of the same run (a `git archive` of an earlier commit's packages/sandbox, with links to this
// checkout's packages: docs/benchmarks/sandbox.md has the commands). Each arm runs in a child process of its own that
// imports only its build (support/build-arm.ts), and the run fails unless each arm ran its own build's worker.
import { readFileSync } from 'node:fs';
import type { PyodideSandboxOptions, Sandbox } from '@taorl/sandbox';
import { checkArms, descendants, isArmChild, serveArm, startArm } from './support/build-arm';

const SNIPPETS = {
  arithmetic: 'print(41 * 73 % 97)',
  sympy: 'import sympy as sp\nx = sp.Symbol("x")\nprint(sp.factor(x**6 - 1), sp.integrate(sp.sin(x)**2, x))',
} as const;
const CALLS = Number(process.env.BENCH_CALLS ?? 20);
const BEFORE_MODULE = process.env.SANDBOX_BEFORE;

type Create = (options: PyodideSandboxOptions & { backend: 'pyodide' }) => Promise<Sandbox>;
interface Row {
  snippet: string;
  startMs: number;
  perCall: number;
  wallMs: number;
}

/** CPU ms (user + system) of this process and its live descendants. */
function treeCpuMs(): number {
  let total = 0;
  for (const pid of [process.pid, ...descendants(process.pid)]) {
    try {
      const fields = (readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1] ?? '').split(' ');
      total += ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
    } catch {
      // it exited meanwhile
    }
  }
  return total;
}

/** Waits until the tree uses under 20 ms of CPU in a second (a load under way, or a process exiting, has ended). */
async function idle(): Promise<number> {
  let last = treeCpuMs();
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const now = treeCpuMs();
    if (now - last < 20) return now;
    last = now;
  }
}

/** One arm, in its child: the sandbox's start, then the CPU and wall time per call of each snippet. */
async function measureArm(create: Create): Promise<Row[]> {
  const rows: Row[] = [];
  const started = performance.now();
  const sandbox = await create({ backend: 'pyodide', workers: 1, limits: { timeoutMs: 120_000 } });
  const startMs = performance.now() - started;
  for (const [snippet, code] of Object.entries(SNIPPETS)) {
    for (let call = 0; call < 2; call++) {
      const result = await sandbox.run({ code });
      if (result.status !== 'ok') throw new Error(`${snippet}: ${result.status} ${result.stderr}`);
    }
    const before = await idle();
    const wallStarted = performance.now();
    for (let call = 0; call < CALLS; call++) {
      const result = await sandbox.run({ code });
      if (result.status !== 'ok') throw new Error(`${snippet}: ${result.status} ${result.stderr}`);
    }
    const wallMs = (performance.now() - wallStarted) / CALLS;
    rows.push({ snippet, startMs, perCall: ((await idle()) - before) / CALLS, wallMs });
  }
  await sandbox.close();
  return rows;
}

if (isArmChild) {
  await serveArm((create) => measureArm(create as Create));
} else {
  const builds: [string, string][] = [
    ...(BEFORE_MODULE === undefined ? [] : ([['before', BEFORE_MODULE]] as [string, string][])),
    ['after', '@taorl/sandbox'],
  ];
  const arms = [];
  const cpu = new Map<string, number>();
  const lines = [
    '| arm | snippet | sandbox start ms | CPU ms per call | wall ms per call |',
    '|---|---|---|---|---|',
  ];
  for (const [label, module] of builds) {
    const arm = await startArm<null, Row[]>(label, import.meta.filename, module);
    arms.push(arm);
    try {
      for (const { snippet, startMs, perCall, wallMs } of await arm.call(null)) {
        cpu.set(`${label} ${snippet}`, perCall);
        lines.push(
          `| ${label} | ${snippet} | ${startMs.toFixed(0)} | ${perCall.toFixed(1)} | ${wallMs.toFixed(1)} |`,
        );
      }
    } finally {
      arm.close();
    }
  }
  checkArms(arms);
  console.log(lines.join('\n'));
  if (BEFORE_MODULE !== undefined) {
    for (const snippet of Object.keys(SNIPPETS)) {
      const ratio = (cpu.get(`before ${snippet}`) ?? 0) / (cpu.get(`after ${snippet}`) ?? 1);
      console.log(`${snippet}: CPU per call, before / after: ${ratio.toFixed(1)}x`);
    }
  }
}
