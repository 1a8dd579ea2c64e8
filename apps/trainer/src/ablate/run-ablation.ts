import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import type { EvalMetrics } from '../report/metrics.js';
import { type RlStepMetrics, readMetrics } from '../report/metrics.js';
import { formatDuration } from '../report/progress.js';
import { ablationTable, type VariantRuns, writeAblationReport } from './ablation-report.js';
import { type CliLauncher, type QueuedRun, type RunOutcome, runQueue } from './run-queue.js';
import { summarizeRun } from './run-summary.js';
import type { AblationVariant } from './variants.js';

export interface AblationOptions {
  /** Everything goes under it: sft/, start/seed-S/, runs/VARIANT/seed-S/, ablation.{json,md,html}. */
  outDir: string;
  /** Base config file for every run (`--config`); the children's own defaults when undefined. */
  configPath?: string;
  /** Base `--set` assignments for every run. */
  overrides: readonly string[];
  /** The starting policy (a saved policy folder); when absent an SFT run with seed `seeds[0]` makes it first. */
  from?: string;
  seeds: readonly number[];
  variants: readonly AblationVariant[];
  parallel: number;
  cli: CliLauncher;
  log: (line: string) => void;
}

export interface AblationResult {
  paths: { json: string; markdown: string; html: string };
  markdown: string;
  wallSeconds: number;
}

const sets = (assignments: readonly string[]) => assignments.flatMap((a) => ['--set', a]);

/**
 * Runs the ablation: SFT once (unless `from`), the starting policy's held-out evaluation per seed, then every arm
 * x seed as its own `taorl rl` process from that policy, `parallel` at a time; then the table of mean and 95% CI
 * per arm and the learning curves. Re-running resumes: finished runs are skipped, interrupted ones continue from
 * their last checkpoint. A failed run is named with its
 * log, after the others have finished.
 */
export async function runAblation(options: AblationOptions): Promise<AblationResult> {
  const started = performance.now();
  const outDir = resolve(options.outDir);
  const base = [...(options.configPath === undefined ? [] : ['--config', options.configPath])];
  const elapsed = () => formatDuration(performance.now() - started);
  const report = (outcome: RunOutcome) =>
    options.log(
      `${outcome.ok ? (outcome.skipped ? 'skip' : 'done') : 'FAILED'} ${outcome.run.label} ` +
        `(${outcome.seconds.toFixed(0)} s${outcome.ok ? '' : `, log ${outcome.logPath}`}) [${elapsed()}]`,
    );
  const run = async (runs: QueuedRun[]) => {
    const outcomes = await runQueue(runs, {
      parallel: options.parallel,
      cli: options.cli,
      onOutcome: report,
    });
    const failed = outcomes.filter((outcome) => !outcome.ok);
    if (failed.length > 0) {
      throw new Error(
        `ablation: ${failed.length} run(s) failed: ${failed.map((f) => `${f.run.label} (log ${f.logPath})`).join('; ')}`,
      );
    }
  };

  let from = options.from === undefined ? undefined : resolve(options.from);
  if (from === undefined) {
    const dir = join(outDir, 'sft');
    options.log(`SFT of the starting policy into ${dir}`);
    await run([
      {
        label: 'sft',
        dir,
        // --resume: a run interrupted in an earlier invocation continues from its checkpoint (or starts anew).
        cliArgs: [
          'sft',
          ...base,
          ...sets([...options.overrides, `seed=${options.seeds[0]}`]),
          '--resume',
          '--out',
          dir,
        ],
      },
    ]);
    from = join(dir, 'policy');
  }
  // The children share the cores: each generates on its share of them (rollout.workers, the same trajectories
  // for any number) unless the overrides say otherwise, instead of each starting a worker thread per core.
  const workers = Math.max(1, Math.floor(availableParallelism() / Math.max(1, options.parallel)));
  const common = [`rollout.workers=${workers}`, ...options.overrides, `model.path=${JSON.stringify(from)}`];
  const startDir = (seed: number) => join(outDir, 'start', `seed-${seed}`);
  const runDir = (variant: AblationVariant, seed: number) =>
    join(outDir, 'runs', variant.name, `seed-${seed}`);
  const queue: QueuedRun[] = [
    ...options.seeds.map((seed) => ({
      label: `start seed ${seed}`,
      dir: startDir(seed),
      cliArgs: ['eval', ...base, ...sets([...common, `seed=${seed}`]), '--out', startDir(seed)],
    })),
    ...options.variants.flatMap((variant) =>
      options.seeds.map((seed) => ({
        label: `${variant.name} seed ${seed}`,
        dir: runDir(variant, seed),
        cliArgs: [
          'rl',
          ...base,
          ...sets([...common, `seed=${seed}`, ...variant.overrides]),
          '--eval-after',
          '--resume',
          '--out',
          runDir(variant, seed),
        ],
      })),
    ),
  ];
  options.log(
    `${queue.length} runs (${options.variants.length} arms x ${options.seeds.length} seeds + start evaluations), ` +
      `${options.parallel} at a time, from ${from}`,
  );
  await run(queue);

  const start = options.seeds.map((seed) => {
    const path = join(startDir(seed), 'held-out.json');
    const line = JSON.parse(readFileSync(path, 'utf8')) as EvalMetrics;
    return { avgAtK: line.accuracy, passAtK: line.passAtK };
  });
  const variants: VariantRuns[] = options.variants.map((variant) => {
    const perSeed = options.seeds.map((seed) => {
      const path = join(runDir(variant, seed), 'metrics.jsonl');
      const lines = readMetrics(path);
      return {
        summary: summarizeRun(lines, path),
        curve: lines.filter((line): line is RlStepMetrics => line.phase === 'rl'),
      };
    });
    return {
      variant,
      seeds: [...options.seeds],
      summaries: perSeed.map((s) => s.summary),
      curves: perSeed.map((s) => s.curve),
    };
  });
  const table = ablationTable(start, variants);
  const wallSeconds = (performance.now() - started) / 1000;
  const note =
    `${options.variants.length} arms x ${options.seeds.length} seeds (${options.seeds.join(', ')}) from ${from}; ` +
    `mean ± 95% CI half-width (Student t over seeds); this invocation's wall time ${wallSeconds.toFixed(0)} s.`;
  const paths = await writeAblationReport(outDir, table, variants, note);
  return { paths, markdown: readFileSync(paths.markdown, 'utf8'), wallSeconds };
}
