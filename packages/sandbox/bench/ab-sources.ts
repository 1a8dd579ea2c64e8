// The cost of a change to the local sandbox, per call, as a ratio in one run: this checkout's @taorl/sandbox against
// another source tree of it (for example main's, extracted with `git archive main packages/sandbox/src
// packages/sandbox/python | tar -x -C /tmp/base`), one worker each, calls interleaved (the order alternates) so
// that the machine's load falls on both arms alike. Each arm is a child process that imports only its build
// (support/build-arm.ts) and times its own calls; the run fails unless each arm imported the build it names. Run from
// the repository root:
//   pnpm bench packages/sandbox/bench/ab-sources.ts /tmp/base/packages/sandbox/src/index.ts [calls per snippet] [fork|spawn]
import type { Sandbox } from '@taorl/sandbox';
import { checkArms, isArmChild, serveArm, startArm } from './support/build-arm';

const SNIPPETS = {
  arithmetic: 'total = 0\nfor i in range(1, 2001):\n    total += i * i % 7\nprint(total)',
  sympy: 'import sympy as sp\nx = sp.Symbol("x")\nprint(sp.factor(x**6 - 1), sp.integrate(sp.sin(x)**2, x))',
} as const;

/** To an arm: make its sandbox, time one call of `code` (ms), or close its sandbox. */
type Request = { readonly open: 'fork' | 'spawn' } | { readonly code: string } | { readonly close: true };

if (isArmChild) {
  let sandbox: Sandbox | undefined;
  await serveArm(async (create, request: Request): Promise<number> => {
    if ('open' in request) sandbox = await create({ workers: 1, mode: request.open });
    else if (sandbox === undefined) throw new Error('the arm got a request before its sandbox was made');
    else if ('close' in request) await sandbox.close();
    else {
      const started = performance.now();
      const result = await sandbox.run({ code: request.code });
      if (result.status !== 'ok') throw new Error(`${result.status} ${result.stderr}`);
      return performance.now() - started;
    }
    return 0;
  });
} else {
  const [basePath, callsArgument, modeArgument] = process.argv.slice(2);
  if (basePath === undefined)
    throw new Error('usage: ab-sources.ts <other src/index.ts> [calls] [fork|spawn]');
  const calls = Number(callsArgument ?? 100);
  const mode = modeArgument === 'spawn' ? 'spawn' : 'fork';
  const arms = {
    base: await startArm<Request, number>('base', import.meta.filename, basePath),
    this: await startArm<Request, number>('this', import.meta.filename, '@taorl/sandbox'),
  };
  const median = (values: number[]) =>
    [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
  const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
  const lines: string[] = [];
  try {
    await Promise.all([arms.base.call({ open: mode }), arms.this.call({ open: mode })]);
    for (const [name, code] of Object.entries(SNIPPETS)) {
      const times = { base: [] as number[], this: [] as number[] };
      for (let call = 0; call < calls; call++) {
        for (const arm of call % 2 === 0 ? (['base', 'this'] as const) : (['this', 'base'] as const)) {
          times[arm].push(await arms[arm].call({ code }));
        }
      }
      lines.push(
        `${name}: p50 ${median(times.base).toFixed(1)} ms (base) vs ${median(times.this).toFixed(1)} ms (this), ` +
          `ratio ${(median(times.this) / median(times.base)).toFixed(3)}; mean ratio ` +
          `${(mean(times.this) / mean(times.base)).toFixed(3)} (${calls} calls each, mode ${mode})`,
      );
    }
    checkArms([arms.base, arms.this]);
    console.log(lines.join('\n'));
  } finally {
    await Promise.all([arms.base.call({ close: true }), arms.this.call({ close: true })]);
    arms.base.close();
    arms.this.close();
  }
}
