/**
 * `taorl demo` for several seeds, one after another (each uses both cores), and the table of its held-out results:
 * per seed and the mean, with the targets checked per seed (RL >= more SFT + 5 points and >= SFT + 10
 * points in Avg@K, greedy RL >= greedy more SFT). Each run is the CLI as a user runs it, built from dist.
 *
 *   pnpm build && pnpm bench apps/trainer/bench/demo-seeds.ts [seeds=1,2,3] [outRoot=runs/demo-seeds] [--set ...]
 *
 * A seed whose folder already holds a finished demo (its last evaluation written) is read, not run again, so seeds
 * run elsewhere (for example in parallel) can be tabled together; its wall time is then the folder's.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { demoMechanisms } from '../src/experiments/demo/demo-mechanisms.js';
import { type EvalMetrics, type RlStepMetrics, readMetrics } from '../src/index.js';

const seeds = (process.argv[2] ?? '1,2,3').split(',').map(Number);
const outRoot = resolve(process.argv[3] ?? 'runs/demo-seeds');
const extra = process.argv.slice(4);
const cli = resolve(import.meta.dirname, '../dist/cli.js');

interface SeedResult {
  seed: number;
  seconds: number;
  evals: Map<string, EvalMetrics>;
  rl: RlStepMetrics[];
}

const results: SeedResult[] = [];
for (const seed of seeds) {
  const outDir = join(outRoot, `seed-${seed}`);
  const metricsPath = join(outDir, 'metrics.jsonl');
  const finished = () =>
    existsSync(metricsPath) &&
    readMetrics(metricsPath).some((line) => line.phase === 'eval' && line.label.startsWith('SFT + more SFT'));
  let seconds: number;
  if (finished()) {
    const { birthtimeMs, mtimeMs } = statSync(metricsPath);
    seconds = (mtimeMs - birthtimeMs) / 1000;
  } else {
    const started = performance.now();
    rmSync(outDir, { recursive: true, force: true });
    const run = spawnSync(
      process.execPath,
      [cli, 'demo', '--set', `seed=${seed}`, '--out', outDir, ...extra],
      {
        stdio: ['ignore', 'inherit', 'inherit'],
      },
    );
    if (run.status !== 0) throw new Error(`taorl demo for seed ${seed} exited with ${run.status}`);
    seconds = (performance.now() - started) / 1000;
  }
  const metrics = readMetrics(metricsPath);
  results.push({
    seed,
    seconds,
    evals: new Map(
      metrics.filter((line): line is EvalMetrics => line.phase === 'eval').map((line) => [line.label, line]),
    ),
    rl: metrics.filter((line): line is RlStepMetrics => line.phase === 'rl'),
  });
}

const pct = (x: number) => (100 * x).toFixed(1);
const points = (x: number) => `${x >= 0 ? '+' : ''}${(100 * x).toFixed(1)}`;
const accuracy = (r: SeedResult, label: string) => r.evals.get(label)?.accuracy ?? Number.NaN;
const rows = results.map((r) => {
  const [sft, rl, more] = ['SFT', 'SFT + RL', 'SFT + more SFT'].map((label) => accuracy(r, label)) as [
    number,
    number,
    number,
  ];
  const [sftG, rlG, moreG] = ['SFT', 'SFT + RL', 'SFT + more SFT'].map((label) =>
    accuracy(r, `${label} (greedy)`),
  ) as [number, number, number];
  const met = rl >= more + 0.05 && rl >= sft + 0.1 && rlG >= moreG;
  return { r, sft, rl, more, sftG, rlG, moreG, met };
});
const mean = (pick: (row: (typeof rows)[number]) => number) =>
  rows.reduce((sum, row) => sum + pick(row), 0) / rows.length;

console.log(
  '\n| seed | SFT Avg@2 | RL Avg@2 | more SFT Avg@2 | RL - more SFT | RL - SFT | greedy SFT / RL / more SFT | targets | wall s |',
);
console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
for (const { r, sft, rl, more, sftG, rlG, moreG, met } of rows) {
  console.log(
    `| ${r.seed} | ${pct(sft)} | ${pct(rl)} | ${pct(more)} | ${points(rl - more)} | ${points(rl - sft)} | ` +
      `${pct(sftG)} / ${pct(rlG)} / ${pct(moreG)} | ${met ? 'met' : 'NOT met'} | ${r.seconds.toFixed(0)} |`,
  );
}
console.log(
  `| mean | ${pct(mean((x) => x.sft))} | ${pct(mean((x) => x.rl))} | ${pct(mean((x) => x.more))} | ` +
    `${points(mean((x) => x.rl - x.more))} | ${points(mean((x) => x.rl - x.sft))} | ${pct(mean((x) => x.sftG))} / ` +
    `${pct(mean((x) => x.rlG))} / ${pct(mean((x) => x.moreG))} | ${rows.filter((x) => x.met).length} of ${rows.length} | ` +
    `${mean((x) => x.r.seconds).toFixed(0)} |`,
);

console.log(
  '\n| seed | all-failed-but-right, early steps | C1 drops | bonus at decision points | decision entropy early -> late | calls early -> late | direct early -> late | stopped early -> late |',
);
console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
for (const { seed, rl } of results) {
  const m = demoMechanisms(rl);
  console.log(
    `| ${seed} | ${pct(m.allFailedCorrectEarly)}% | ${m.c1Dropped} | ${pct(m.decisionPointBonusShare)}% | ` +
      `${m.trends.decisionPointEntropy.early.toFixed(3)} -> ${m.trends.decisionPointEntropy.late.toFixed(3)} | ` +
      `${m.trends.toolCallsPerTrajectory.early.toFixed(2)} -> ${m.trends.toolCallsPerTrajectory.late.toFixed(2)} | ` +
      `${pct(m.trends.direct.early)}% -> ${pct(m.trends.direct.late)}% | ` +
      `${pct(m.trends['stopped-early'].early)}% -> ${pct(m.trends['stopped-early'].late)}% |`,
  );
}
