// Where a call's CPU goes in the local pool: page faults and CPU time per call of the Python worker, of its zygote
// (its own), and of the runs' children (the zygote reaps them, so the kernel adds theirs to the zygote's cminflt
// and cutime), read from /proc before and after CALLS back-to-back calls of three snippets on one worker. On a VM
// where a page fault costs tens of microseconds, the children's faults are most of a call's CPU. Another build can
// be measured with SANDBOX_MODULE=<its src/index.ts>. Run from the repository root (as root, as in training):
//   pnpm bench packages/sandbox/bench/page-faults.ts
import type { LocalSandbox, LocalSandboxOptions } from '@taorl/sandbox';
import { stat, workerAndZygote } from './support/pool-processes';

const CALLS = Number(process.env.BENCH_CALLS ?? 50);
const SNIPPETS = {
  pass: 'pass',
  arithmetic: 'total = 0\nfor i in range(1, 2001):\n    total += i * i % 7\nprint(total)',
  sympy: 'import sympy as sp\nx = sp.Symbol("x")\nprint(sp.factor(x**6 - 1), sp.integrate(sp.sin(x)**2, x))',
};
const TICKS_PER_SECOND = 100;

const { createSandbox } = (await import(process.env.SANDBOX_MODULE ?? '@taorl/sandbox')) as {
  createSandbox: (options: LocalSandboxOptions) => Promise<LocalSandbox>;
};

const sandbox = await createSandbox({ workers: 1 });
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
try {
  await sandbox.run({ code: 'pass' });
  const [worker, zygote] = workerAndZygote(sandbox.workerPids()[0] as number);
  console.log(
    '| snippet | wall ms | worker faults / CPU ms | zygote faults / CPU ms | children faults / CPU ms |',
  );
  console.log('|---|---|---|---|---|');
  for (const [label, code] of Object.entries(SNIPPETS)) {
    await sandbox.run({ code });
    await pause(200);
    const [w0, z0] = [stat(worker), stat(zygote)];
    const started = performance.now();
    for (let call = 0; call < CALLS; call++) {
      const result = await sandbox.run({ code });
      if (result.status !== 'ok') throw new Error(`${label}: ${result.status} ${result.stderr}`);
    }
    const wall = (performance.now() - started) / CALLS;
    await pause(300); // the last run's child is reaped
    const [w1, z1] = [stat(worker), stat(zygote)];
    const per = (after: number[], before: number[], field: number) =>
      ((after[field] as number) - (before[field] as number)) / CALLS;
    const ms = (after: number[], before: number[], fields: number[]) =>
      (fields.reduce((sum, field) => sum + per(after, before, field), 0) * 1000) / TICKS_PER_SECOND;
    console.log(
      `| ${label} | ${wall.toFixed(1)} | ${per(w1, w0, 7).toFixed(0)} / ${ms(w1, w0, [11, 12]).toFixed(1)} | ` +
        `${per(z1, z0, 7).toFixed(0)} / ${ms(z1, z0, [11, 12]).toFixed(1)} | ` +
        `${per(z1, z0, 8).toFixed(0)} / ${ms(z1, z0, [13, 14]).toFixed(1)} |`,
    );
  }
} finally {
  await sandbox.close();
}
