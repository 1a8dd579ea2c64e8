import { spawnSync } from 'node:child_process';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PluginSpec } from '../config/fields.js';
import type { TrainerConfig } from '../config/trainer-config.js';

/** What ran, for the top of a report: the settings a reader needs without the console, in display order. */
export interface RunSummary {
  /** [what, value] rows: seed, task, model, estimator, shaper, filters, loss, ... */
  rows: [string, string][];
  /** Held-out samples per problem (K of Avg@K), so the report can name its metric. */
  evalSamples: number;
}

/** A plug-in as a config writes it: `tao` or `cheng {alpha: 0.4}`. */
export function pluginText(spec: PluginSpec): string {
  const options = Object.entries(spec.options);
  if (options.length === 0) return spec.name;
  return `${spec.name} {${options.map(([key, value]) => `${key}: ${JSON.stringify(value)}`).join(', ')}}`;
}

/**
 * The commit of the checkout the trainer runs from, with "+ changes" when its files differ from it; null outside
 * a git checkout (an installed package) or without git.
 */
export function sourceCommit(): string | null {
  const here = dirname(fileURLToPath(import.meta.url));
  const git = (args: string[]) =>
    spawnSync('git', ['-C', here, ...args], {
      encoding: 'utf8',
      timeout: 5000,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
  const head = git(['rev-parse', '--short=12', 'HEAD']);
  if (head.status !== 0 || head.stdout.trim() === '') return null;
  const changed = git(['status', '--porcelain', '--untracked-files=no']).stdout.trim() !== '';
  return `${head.stdout.trim()}${changed ? ' + uncommitted changes' : ''}`;
}

/** The RL algorithm a config runs, in a few words: `grpo, tao shaper, filters tool-aware, vanilla loss`. */
export function algorithmTitle(config: TrainerConfig): string {
  const { estimator, shaper, filters, loss } = config.rl;
  const filtered = filters.length === 0 ? 'no filters' : `filters ${filters.map((f) => f.name).join(' + ')}`;
  return `${estimator.name}, ${shaper.name} shaper, ${filtered}, ${loss.name} loss`;
}

/** The summary of a run of `config`, `commit` as `sourceCommit` gives it. */
export function runSummary(config: TrainerConfig, commit: string | null): RunSummary {
  const { rl, rollout, task, model, tool, sft } = config;
  const modelText =
    model.path === undefined || model.path === null ? model.source : `${model.source} from ${model.path}`;
  return {
    evalSamples: config.eval.samples,
    rows: [
      ['seed', String(config.seed)],
      ['commit', commit ?? 'unknown (not run from a git checkout)'],
      [
        'task',
        task.name === 'arith-tool'
          ? `arith-tool (${task.mix} mix)`
          : `${task.name} ${task.file ?? ''}`.trim(),
      ],
      ['model', `${modelText}, ${config.backend} backend`],
      ['SFT', `${sft.steps} steps of ${sft.batchSize}, learning rate ${sft.learningRate}`],
      [
        'RL',
        `${rl.steps} steps of ${rl.groups} problems x ${rl.groupSize} samples, learning rate ${rl.learningRate}, ` +
          `temperature ${rollout.temperature}, up to ${rollout.maxTurns} turns`,
      ],
      ['estimator', pluginText(rl.estimator)],
      ['shaper', pluginText(rl.shaper)],
      ['filters', rl.filters.length === 0 ? 'none' : rl.filters.map(pluginText).join(', ')],
      ['loss', pluginText(rl.loss)],
      ['tool', `${pluginText(tool.format)} format, ${pluginText(tool.sandbox)} sandbox`],
      ['held-out', `${task.testSize} problems, ${config.eval.samples} sample(s) each`],
    ],
  };
}
