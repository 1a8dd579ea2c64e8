// The pyodide backend's cost per call in headless Chromium (web workers, '@taorl/sandbox/browser') against Node's
// (child processes, '@taorl/sandbox'), on the same machine in one run: for each concurrency, each arm makes its
// sandbox (standard library only: a browser has no sympy to copy in), runs one call to check it, then `calls` calls
// with exactly `concurrency` in flight; the arms alternate cell by cell. Chromium's latencies are taken in the page
// (performance.now around run()), so the DevTools protocol that drives it is not counted. Run from the repository
// root:
//   pnpm bench packages/sandbox/bench/pyodide-browser.ts
// Knobs: BENCH_CONCURRENCY (1,2), BENCH_CALLS (12).
import { createSandbox } from '@taorl/sandbox';
import type { Page } from 'playwright-core';
import type { ExecResult } from '../src/browser';
import { chromiumPath, startPyodidePage, WHY_NO_CHROMIUM } from '../test/support/browser-page';

const CODE = 'total = 0\nfor i in range(1, 2001):\n    total += i * i % 7\nprint(total)';
const CONCURRENCY = (process.env.BENCH_CONCURRENCY ?? '1,2').split(',').map(Number);
const CALLS = Number(process.env.BENCH_CALLS ?? 12);
const LIMITS = { timeoutMs: 120_000 };

/** What one arm measured: start of the sandbox, then `calls` runs (latency from run() to its result). */
interface Cell {
  startMs: number;
  perSecond: number;
  latencies: number[];
  /** The runs' own durationMs: the code in a started interpreter, without the interpreter's start. */
  runMs: number[];
}

/**
 * Starts a sandbox with `start`, checks one call, then makes `calls` calls with `concurrency` in flight. The same
 * function runs in Node and, serialized by playwright, in the page (it uses nothing from its scope).
 */
async function cell(args: {
  code: string;
  calls: number;
  concurrency: number;
  options: object;
  inPage: boolean;
}): Promise<Cell> {
  type Runner = { run(request: { code: string }): Promise<ExecResult>; close(): Promise<void> };
  const scope = globalThis as unknown as {
    taorlSandbox: { createSandbox(options: object): Promise<Runner> };
    nodeCreateSandbox: (options: object) => Promise<Runner>;
  };
  const create = args.inPage ? scope.taorlSandbox.createSandbox : scope.nodeCreateSandbox;
  const t0 = performance.now();
  const sandbox = await create(args.options);
  const startMs = performance.now() - t0;
  try {
    const check = await sandbox.run({ code: args.code });
    if (check.status !== 'ok') throw new Error(`check call: ${check.status} ${check.stderr}`);
    const latencies: number[] = [];
    const runMs: number[] = [];
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: args.concurrency }, async () => {
        while (next < args.calls) {
          next++;
          const t = performance.now();
          const result = await sandbox.run({ code: args.code });
          if (result.status !== 'ok') throw new Error(`call: ${result.status} ${result.stderr}`);
          latencies.push(performance.now() - t);
          runMs.push(result.durationMs);
        }
      }),
    );
    const perSecond = args.calls / ((performance.now() - started) / 1000);
    return { startMs, perSecond, latencies, runMs };
  } finally {
    await sandbox.close();
  }
}

const executablePath = chromiumPath();
if (executablePath === null) throw new Error(WHY_NO_CHROMIUM);
(globalThis as unknown as { nodeCreateSandbox: unknown }).nodeCreateSandbox = createSandbox;
const served = await startPyodidePage(executablePath);
const { page } = await served.open();

const node = (concurrency: number) =>
  cell({
    code: CODE,
    calls: CALLS,
    concurrency,
    options: { backend: 'pyodide', workers: concurrency, packages: [], preload: [], limits: LIMITS },
    inPage: false,
  });
const browser = (concurrency: number, target: Page) =>
  target.evaluate(cell, {
    code: CODE,
    calls: CALLS,
    concurrency,
    options: { backend: 'pyodide', indexURL: '/pyodide/', workers: concurrency, limits: LIMITS },
    inPage: true,
  });

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] as number;
};
const fmt = (value: number, digits = 0) => value.toFixed(digits);
const row = (arm: string, concurrency: number, measured: Cell, ratio: string) =>
  `| ${arm} | ${concurrency} | ${fmt(measured.startMs)} | ${fmt(measured.perSecond, 2)} | ` +
  `${fmt(quantile(measured.latencies, 0.5))} / ${fmt(quantile(measured.latencies, 0.95))} | ` +
  `${fmt(quantile(measured.runMs, 0.5), 1)} | ${ratio} |`;

const lines = [
  '| arm | concurrency | sandbox start ms | calls/s | call p50 / p95 ms | run p50 ms (in its interpreter) | calls/s vs Node |',
  '|---|---|---|---|---|---|---|',
];
try {
  for (const [index, concurrency] of CONCURRENCY.entries()) {
    // Alternating which arm goes first, so that neither always meets the machine's load first.
    let inNode: Cell;
    let inChromium: Cell;
    if (index % 2 === 0) {
      inNode = await node(concurrency);
      inChromium = await browser(concurrency, page);
    } else {
      inChromium = await browser(concurrency, page);
      inNode = await node(concurrency);
    }
    lines.push(row('Node (child process)', concurrency, inNode, '1'));
    lines.push(
      row(
        'Chromium (web worker)',
        concurrency,
        inChromium,
        `**${fmt(inChromium.perSecond / inNode.perSecond, 2)}x**`,
      ),
    );
  }
} finally {
  await served.close();
}
console.log(`${CALLS} calls per cell, code: a 2 000-iteration integer loop that prints one number`);
console.log(lines.join('\n'));
