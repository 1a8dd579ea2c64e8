import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import type { RlStepMetrics } from '@taorl/rl';
import { loadConfig } from '../../config/load-config.js';
import { RUN_RECORD } from '../../config/run-record.js';
import type { TrainerConfig } from '../../config/trainer-config.js';
import { type EvalMetrics, readMetrics } from '../../report/metrics.js';
import { formatDuration } from '../../report/progress.js';
import {
  ablationTable,
  type StartEvaluation,
  type VariantRuns,
  writeAblationReport,
} from './ablation-report.js';
import { type CliLauncher, type QueuedRun, type RunOutcome, runQueue } from './run-queue.js';
import { checkDecoding, type RunSummary, summarizeRun } from './run-summary.js';
import type { AblationVariant } from './variants.js';

export interface AblationOptions {
  /** Everything goes under it: sft/, start/seed-S/ (greedy/ inside), runs/VARIANT/seed-S/, ablation.{json,md,html}. */
  outDir: string;
  /** Base config file for every run (`--config`); the children's own defaults when undefined. */
  configPath?: string;
  /** Base `--set` assignments for every run. */
  overrides: readonly string[];
  /** Plug-in module files every run imports (`--plugin`), beyond the config file's `plugins`. */
  pluginFiles?: readonly string[];
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
const configArgs = (options: Pick<AblationOptions, 'configPath' | 'pluginFiles'>) => [
  ...(options.configPath === undefined ? [] : ['--config', options.configPath]),
  ...(options.pluginFiles ?? []).flatMap((file) => ['--plugin', file]),
];

/** Where each child run lives under the ablation's folder. */
export const ablationDirs = (outDir: string) => ({
  sft: join(outDir, 'sft'),
  start: (seed: number) => join(outDir, 'start', `seed-${seed}`),
  startGreedy: (seed: number) => join(outDir, 'start', `seed-${seed}`, 'greedy'),
  run: (variant: AblationVariant, seed: number) => join(outDir, 'runs', variant.name, `seed-${seed}`),
});

/** A sampled held-out evaluation (Avg@K, Pass@K) whatever the config's eval.greedy, and a greedy one (one sample). */
const SAMPLED = ['eval.greedy=false'];
const GREEDY = ['eval.greedy=true', 'eval.samples=1'];

/**
 * The assignments that make a child start from the policy in `from`: model.path, and model.source embedded unless
 * the model is a Hugging Face folder (hf). A policy the trainer saved from the tiny model is an embedded model at a
 * path; `base` names the shipped base itself and refuses a path.
 */
export function startingPolicy(source: TrainerConfig['model']['source'], from: string): string[] {
  return [...(source === 'hf' ? [] : ['model.source=embedded']), `model.path=${JSON.stringify(from)}`];
}

/** The SFT run that makes the starting policy: the config's own model (e.g. the pretrained base), seed `seeds[0]`. */
export function sftRun(
  options: Pick<AblationOptions, 'configPath' | 'pluginFiles' | 'overrides' | 'seeds'>,
  outDir: string,
): QueuedRun {
  const dir = ablationDirs(outDir).sft;
  return {
    label: 'sft',
    dir,
    // --resume: a run interrupted in an earlier invocation continues from its checkpoint (or starts anew).
    cliArgs: [
      'sft',
      ...configArgs(options),
      ...sets([...options.overrides, `seed=${options.seeds[0]}`]),
      '--resume',
      '--out',
      dir,
    ],
  };
}

/**
 * The runs from the starting policy `from`: per seed its sampled and greedy held-out evaluations, then every arm x
 * seed as `taorl rl` with a sampled and a greedy evaluation after its last step. `source` is the config's
 * model.source (see startingPolicy).
 */
export function ablationRuns(
  options: Pick<
    AblationOptions,
    'configPath' | 'pluginFiles' | 'overrides' | 'seeds' | 'variants' | 'parallel'
  >,
  outDir: string,
  from: string,
  source: TrainerConfig['model']['source'],
): QueuedRun[] {
  const dirs = ablationDirs(outDir);
  // The children share the cores: each generates on its share of them (workers, the same trajectories
  // for any number) unless the overrides say otherwise, instead of each starting a worker thread per core.
  const workers = Math.max(1, Math.floor(availableParallelism() / Math.max(1, options.parallel)));
  const common = [`workers=${workers}`, ...options.overrides, ...startingPolicy(source, from)];
  const evaluation = (label: string, dir: string, seed: number, decoding: readonly string[]): QueuedRun => ({
    label,
    dir,
    cliArgs: [
      'eval',
      ...configArgs(options),
      ...sets([...common, `seed=${seed}`, ...decoding]),
      '--out',
      dir,
    ],
  });
  return [
    ...options.seeds.flatMap((seed) => [
      evaluation(`start seed ${seed}`, dirs.start(seed), seed, SAMPLED),
      evaluation(`start greedy seed ${seed}`, dirs.startGreedy(seed), seed, GREEDY),
    ]),
    ...options.variants.flatMap((variant) =>
      options.seeds.map((seed) => ({
        label: `${variant.name} seed ${seed}`,
        dir: dirs.run(variant, seed),
        cliArgs: [
          'rl',
          ...configArgs(options),
          ...sets([...common, `seed=${seed}`, ...variant.overrides]),
          '--eval-after',
          '--eval-greedy',
          '--resume',
          '--out',
          dirs.run(variant, seed),
        ],
      })),
    ),
  ];
}

/** The starting policy's held-out results for `seed`, from its two evaluations' held-out.json. */
function startEvaluation(dirs: ReturnType<typeof ablationDirs>, seed: number): StartEvaluation {
  const read = (dir: string, greedy: boolean) => {
    const path = join(dir, 'held-out.json');
    return checkDecoding(JSON.parse(readFileSync(path, 'utf8')) as EvalMetrics, greedy, path);
  };
  const sampled = read(dirs.start(seed), false);
  return {
    avgAtK: sampled.accuracy,
    passAtK: sampled.passAtK,
    greedyAccuracy: read(dirs.startGreedy(seed), true).accuracy,
  };
}

/** One arm x seed's summary (its rollout shape from its run-config.json) and its RL metrics lines. */
function readRun(dir: string): { summary: RunSummary; curve: RlStepMetrics[] } {
  const path = join(dir, 'metrics.jsonl');
  const lines = readMetrics(path);
  const { rl } = loadConfig(join(dir, RUN_RECORD), [], () => undefined);
  return {
    summary: summarizeRun(lines, rl, path),
    curve: lines.filter((line): line is RlStepMetrics => line.phase === 'rl'),
  };
}

/**
 * Runs the ablation: SFT once (unless `from`), the starting policy's sampled and greedy held-out evaluations per
 * seed, then every arm x seed as its own `taorl rl` process from that policy, `parallel` at a time; then the tables
 * (mean and 95% CI per arm, each arm's paired difference from grpo, rollout budget and mechanisms) and the
 * learning curves. Re-running resumes: finished runs are skipped, interrupted ones continue from their last
 * checkpoint. A failed run is named with its log, after the others have finished.
 */
export async function runAblation(options: AblationOptions): Promise<AblationResult> {
  const started = performance.now();
  const outDir = resolve(options.outDir);
  const dirs = ablationDirs(outDir);
  // The children's config, for what the parent must know of it (the command has reported any notice already).
  const config = loadConfig(options.configPath, options.overrides, () => undefined);
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
    options.log(`SFT of the starting policy into ${dirs.sft}`);
    await run([sftRun(options, outDir)]);
    from = join(dirs.sft, 'policy');
  }
  const queue = ablationRuns(options, outDir, from, config.model.source);
  options.log(
    `${queue.length} runs (${options.variants.length} arms x ${options.seeds.length} seeds + 2 start evaluations ` +
      `per seed), ${options.parallel} at a time, from ${from}`,
  );
  await run(queue);

  const start = options.seeds.map((seed) => startEvaluation(dirs, seed));
  const variants: VariantRuns[] = options.variants.map((variant) => {
    const perSeed = options.seeds.map((seed) => readRun(dirs.run(variant, seed)));
    return {
      variant,
      seeds: [...options.seeds],
      summaries: perSeed.map((s) => s.summary),
      curves: perSeed.map((s) => s.curve),
    };
  });
  const table = ablationTable(start, variants, config.eval.samples);
  const wallSeconds = (performance.now() - started) / 1000;
  const note =
    `${options.variants.length} arms x ${options.seeds.length} seeds (${options.seeds.join(', ')}) from ${from}; ` +
    `held-out: ${config.task.testSize} problems per seed, Avg@${config.eval.samples} and Pass@${config.eval.samples} ` +
    `sampled at temperature ${config.rollout.temperature}, and greedy; at most ${config.rl.maxGenBatches} rollout ` +
    `batch(es) of ${config.rl.groups} x ${config.rl.groupSize} per step; mean ± 95% CI half-width (Student t ` +
    `over seeds); this invocation's wall time ${wallSeconds.toFixed(0)} s.`;
  const paths = await writeAblationReport(outDir, table, variants, note);
  return { paths, markdown: readFileSync(paths.markdown, 'utf8'), wallSeconds };
}
