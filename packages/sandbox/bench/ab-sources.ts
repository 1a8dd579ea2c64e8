// The cost of a change to the local sandbox, per call, as a ratio in one run: this checkout's @taorl/sandbox against
// another source tree of it (for example main's, extracted with `git archive main packages/sandbox/src
// packages/sandbox/python | tar -x -C /tmp/base`), one worker each, calls interleaved (the order alternates) so
// that the machine's load falls on both arms alike. Run from the repository root:
//   pnpm bench packages/sandbox/bench/ab-sources.ts /tmp/base/packages/sandbox/src/index.ts [calls per snippet] [fork|spawn]
import { createSandbox } from '@taorl/sandbox';

const SNIPPETS = {
  arithmetic: 'total = 0\nfor i in range(1, 2001):\n    total += i * i % 7\nprint(total)',
  sympy: 'import sympy as sp\nx = sp.Symbol("x")\nprint(sp.factor(x**6 - 1), sp.integrate(sp.sin(x)**2, x))',
} as const;

const [basePath, callsArgument, modeArgument] = process.argv.slice(2);
if (basePath === undefined) throw new Error('usage: ab-sources.ts <other src/index.ts> [calls] [fork|spawn]');
const calls = Number(callsArgument ?? 100);
const mode = modeArgument === 'spawn' ? 'spawn' : 'fork';
const base = (await import(basePath)) as { createSandbox: typeof createSandbox };
const arms = {
  base: await base.createSandbox({ workers: 1, mode }),
  this: await createSandbox({ workers: 1, mode }),
};
const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
try {
  for (const [name, code] of Object.entries(SNIPPETS)) {
    const times = { base: [] as number[], this: [] as number[] };
    for (let call = 0; call < calls; call++) {
      for (const arm of call % 2 === 0 ? (['base', 'this'] as const) : (['this', 'base'] as const)) {
        const started = performance.now();
        const result = await arms[arm].run({ code });
        if (result.status !== 'ok') throw new Error(`${arm}: ${result.status} ${result.stderr}`);
        times[arm].push(performance.now() - started);
      }
    }
    console.log(
      `${name}: p50 ${median(times.base).toFixed(1)} ms (base) vs ${median(times.this).toFixed(1)} ms (this), ` +
        `ratio ${(median(times.this) / median(times.base)).toFixed(3)}; mean ratio ` +
        `${(mean(times.this) / mean(times.base)).toFixed(3)} (${calls} calls each, mode ${mode})`,
    );
  }
} finally {
  await Promise.all([arms.base.close(), arms.this.close()]);
}
