// Throughput of real SFT trace generation for the arith-tool task, against running the same code cells
// directly in the same sandbox (the floor set by Python execution).
// Run from the repository root: pnpm bench packages/data/bench/arith-traces.ts
import { ByteTokenizer, generateArithProblems, generateArithTraces } from '@taorl/data';
import { createSandbox, markdownFormat } from '@taorl/sandbox';

const COUNT = 300;
const WORKERS = 2;
const problems = generateArithProblems({ seed: 1, split: 'train', count: COUNT });
const tokenizer = new ByteTokenizer();
const sandbox = await createSandbox({ workers: WORKERS });

// Warm the worker pool so neither measurement pays its start-up.
await sandbox.runMany(Array.from({ length: WORKERS * 2 }, () => ({ code: 'print(1)' })));

const traceStart = performance.now();
const traces = await generateArithTraces(problems, {
  sandbox,
  format: markdownFormat,
  tokenizer,
  seed: 1,
  concurrency: WORKERS * 2,
});
const traceSeconds = (performance.now() - traceStart) / 1000;
const cells = traces.flatMap((trace) => trace.toolCalls.map((call) => ({ code: call.code })));

const runStart = performance.now();
await sandbox.runMany(cells);
const runSeconds = (performance.now() - runStart) / 1000;

const tokens = traces.reduce((sum, trace) => sum + trace.promptIds.length + trace.responseIds.length, 0);
console.log(
  `${COUNT} problems, ${cells.length} code cells, ${WORKERS} sandbox workers (${sandbox.isolation})\n`,
);
console.log('| measurement | rate | vs baseline |\n|---|---|---|');
console.log(
  `| sandbox.runMany of the same cells | ${(cells.length / runSeconds).toFixed(1)} cells/s | baseline |`,
);
console.log(
  `| generateArithTraces | ${(cells.length / traceSeconds).toFixed(1)} cells/s (${(COUNT / traceSeconds).toFixed(1)} traces/s, ${Math.round(tokens / traceSeconds)} tokens/s) | ${(runSeconds / traceSeconds).toFixed(2)}x |`,
);
await sandbox.close();
