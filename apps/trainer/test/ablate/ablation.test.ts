import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import {
  ablationRuns,
  runAblation,
  sftRun,
  startingPolicy,
} from '../../src/experiments/ablate/run-ablation.js';
import type { CliLauncher } from '../../src/experiments/ablate/run-queue.js';
import { selectVariants } from '../../src/experiments/ablate/variants.js';
import { type EvalMetrics, type RlStepMetrics, readMetrics, runCli } from '../../src/index.js';
import { presetPath } from '../../src/util/shipped.js';
import { tinyRunOverrides } from '../support/tiny-run.js';

/** Children run the trainer's sources, as the tests do. */
const cli: CliLauncher = {
  command: process.execPath,
  args: [
    '--conditions=@taorl/source',
    '--import',
    'tsx',
    fileURLToPath(new URL('../../src/cli.ts', import.meta.url)),
  ],
};

/** A minute-sized ablation: tiny SFT and RL, 4 held-out problems x 2 samples. */
const tiny = [...tinyRunOverrides, 'eval.samples=2'];

describe('taorl ablate', () => {
  it('runs SFT once, every arm x seed as its own process, and tabulates what the runs measured', async () => {
    const outDir = mkdtempSync(join(tmpdir(), 'taorl-ablate-'));
    const log: string[] = [];
    const options = {
      outDir,
      configPath: presetPath('ablate'),
      overrides: tiny,
      seeds: [1, 2],
      variants: selectVariants('grpo,tao-rl'),
      parallel: 2,
      cli,
      log: (line: string) => log.push(line),
    };
    const result = await runAblation(options);
    expect(existsSync(join(outDir, 'sft', 'policy', 'model.safetensors'))).toBe(true);

    // Recompute the table's held-out column from the runs' own metrics files.
    const afterRl = (arm: string, seed: number) =>
      readMetrics(join(outDir, 'runs', arm, `seed-${seed}`, 'metrics.jsonl')).find(
        (line): line is EvalMetrics => line.phase === 'eval' && line.label === 'after RL',
      )!;
    const afterRlGreedy = (arm: string, seed: number) =>
      readMetrics(join(outDir, 'runs', arm, `seed-${seed}`, 'metrics.jsonl')).find(
        (line): line is EvalMetrics => line.phase === 'eval' && line.label === 'after RL (greedy)',
      )!;
    type Interval = { mean: number; n: number; perSeed: number[] };
    const table = JSON.parse(readFileSync(result.paths.json, 'utf8')) as {
      rows: (Record<'avgAtK' | 'greedyAccuracy' | 'generatedPerStep', Interval> & { variant: string })[];
      paired: ({ variant: string } & Record<'avgAtK' | 'greedyAccuracy', Interval>)[];
    };
    for (const arm of ['grpo', 'tao-rl']) {
      const row = table.rows.find((r) => r.variant === arm)!;
      expect(row.avgAtK.n).toBe(2);
      expect(row.avgAtK.mean).toBeCloseTo((afterRl(arm, 1).accuracy + afterRl(arm, 2).accuracy) / 2, 12);
      expect(afterRl(arm, 1).greedy).toBe(false);
      expect(afterRlGreedy(arm, 1).greedy).toBe(true);
      expect(row.greedyAccuracy.mean).toBeCloseTo(
        (afterRlGreedy(arm, 1).accuracy + afterRlGreedy(arm, 2).accuracy) / 2,
        12,
      );
      // One rollout batch of 2 groups x 2 per step (tinyRunOverrides), whatever the filters keep.
      expect(row.generatedPerStep.mean).toBe(4);
    }
    const paired = table.paired.find((row) => row.variant === 'tao-rl')!;
    expect(paired.greedyAccuracy.perSeed[1]).toBeCloseTo(
      afterRlGreedy('tao-rl', 2).accuracy - afterRlGreedy('grpo', 2).accuracy,
      12,
    );
    // SFT starts from the config's pretrained base; the evaluations and RL runs load the policy it saved.
    const recorded = (dir: string) =>
      JSON.parse(readFileSync(join(outDir, dir, 'run-config.json'), 'utf8')).config.model;
    expect(recorded('sft')).toMatchObject({ source: 'base' });
    expect(recorded('sft').path).toBeUndefined();
    expect(recorded('runs/grpo/seed-2')).toMatchObject({
      source: 'embedded',
      path: join(outDir, 'sft', 'policy'),
    });
    const startGreedy = JSON.parse(
      readFileSync(join(outDir, 'start', 'seed-1', 'greedy', 'held-out.json'), 'utf8'),
    ) as EvalMetrics;
    expect(startGreedy.greedy).toBe(true);
    // The arms really ran different configurations: no bonus without the shaper.
    const rlLines = (arm: string) =>
      readMetrics(join(outDir, 'runs', arm, 'seed-1', 'metrics.jsonl')).filter(
        (line): line is RlStepMetrics => line.phase === 'rl',
      );
    expect(rlLines('grpo').every((line) => line.bonus.tokens === 0)).toBe(true);
    expect(rlLines('grpo')).toHaveLength(2);
    // The 2 children at a time share the cores' worker pools.
    const record = JSON.parse(
      readFileSync(join(outDir, 'runs', 'grpo', 'seed-1', 'run-config.json'), 'utf8'),
    );
    expect(record.config.workers).toBe(Math.max(1, Math.floor(availableParallelism() / 2)));
    expect(result.markdown).toMatch(/\| SFT start \(no RL\) \| 2 \|/);
    expect(readFileSync(result.paths.html, 'utf8')).toContain('<svg');
    expect(readFileSync(join(outDir, 'charts', 'train-accuracy.svg'), 'utf8')).toMatch(/^<svg/);

    // A second invocation resumes: SFT, 2 x 2 start evaluations and 4 RL runs are all done already.
    log.length = 0;
    await runAblation(options);
    expect(log.filter((line) => line.startsWith('skip'))).toHaveLength(9);
    expect(log.some((line) => line.startsWith('done'))).toBe(false);
  }, 600_000);

  it('names every failed run and its log', async () => {
    const outDir = mkdtempSync(join(tmpdir(), 'taorl-ablate-fail-'));
    await expect(
      runAblation({
        outDir,
        overrides: tiny,
        from: join(outDir, 'no-such-policy'),
        seeds: [1],
        variants: selectVariants('grpo'),
        parallel: 2,
        cli,
        log: () => undefined,
      }),
    ).rejects.toThrow(
      /3 run\(s\) failed: start seed 1 \(log .*log\.txt\); start greedy seed 1 \(log .*\); grpo seed 1/,
    );
  }, 120_000);

  it('starts every child but SFT from the starting policy, loaded as a saved tiny model', () => {
    const options = {
      configPath: presetPath('ablate'),
      overrides: ['rl.steps=3'],
      seeds: [1, 2],
      variants: selectVariants('grpo,c1'),
      parallel: 2,
    };
    const from = '/tmp/start policy';
    const sft = sftRun(options, '/out');
    expect(sft.cliArgs.some((arg) => arg.startsWith('model.'))).toBe(false);
    const queue = ablationRuns(options, '/out', from, 'base');
    expect(queue.map((run) => run.label)).toEqual([
      'start seed 1',
      'start greedy seed 1',
      'start seed 2',
      'start greedy seed 2',
      'grpo seed 1',
      'grpo seed 2',
      'c1 seed 1',
      'c1 seed 2',
    ]);
    // What each child's config becomes: the preset says model.source base, which refuses a model.path.
    const configOf = (args: readonly string[]) =>
      loadConfig(
        presetPath('ablate'),
        args.flatMap((arg, i) => (args[i - 1] === '--set' ? [arg] : [])),
        () => undefined,
      );
    for (const run of queue) {
      const config = configOf(run.cliArgs);
      expect(config.model).toMatchObject({ source: 'embedded', path: from });
      expect(config.rl.steps).toBe(3);
    }
    expect(configOf(sft.cliArgs).model).toMatchObject({ source: 'base' });
    const preset = loadConfig(presetPath('ablate'), [], () => undefined);
    expect(configOf(queue[0]!.cliArgs).eval).toEqual({ samples: preset.eval.samples, greedy: false });
    expect(configOf(queue[1]!.cliArgs).eval).toEqual({ samples: 1, greedy: true });
    expect(configOf(queue[7]!.cliArgs).rl.filters).toEqual([{ name: 'execution-validity', options: {} }]);
    expect(queue[7]!.cliArgs).toEqual(expect.arrayContaining(['--eval-after', '--eval-greedy']));
    expect(queue[1]!.dir).toBe(join('/out', 'start', 'seed-1', 'greedy'));
    // A Hugging Face model stays one: only its path changes.
    expect(startingPolicy('hf', from)).toEqual([`model.path=${JSON.stringify(from)}`]);
    expect(startingPolicy('embedded', from)).toEqual([
      'model.source=embedded',
      `model.path=${JSON.stringify(from)}`,
    ]);
  });

  it('hands the --plugin modules on to every child, SFT included', () => {
    const options = {
      configPath: presetPath('ablate'),
      pluginFiles: ['/plugins/a.js', '/plugins/b.js'],
      overrides: [],
      seeds: [1],
      variants: selectVariants('grpo'),
      parallel: 1,
    };
    const plugins = ['--plugin', '/plugins/a.js', '--plugin', '/plugins/b.js'];
    const children = [sftRun(options, '/out'), ...ablationRuns(options, '/out', '/start', 'base')];
    expect(children).toHaveLength(4);
    for (const child of children) {
      const at = child.cliArgs.indexOf('--plugin');
      expect(child.cliArgs.slice(at, at + plugins.length)).toEqual(plugins);
    }
  });

  it("runs the demo's task, model, SFT and RL with one rollout batch per step (equal budget)", () => {
    const ablate = loadConfig(presetPath('ablate'), [], () => undefined);
    const demo = loadConfig(presetPath('demo'), [], () => undefined);
    expect(ablate.rl.maxGenBatches).toBe(1);
    // microBatchRows splits the same gradient differently (rounding and speed only); the ablation keeps the value
    // its results were measured with.
    expect(ablate.rl.microBatchRows).toBe(32);
    expect({
      ...ablate.rl,
      maxGenBatches: demo.rl.maxGenBatches,
      microBatchRows: demo.rl.microBatchRows,
    }).toEqual(demo.rl);
    expect(ablate.sft).toEqual(demo.sft);
    expect(ablate.model).toEqual(demo.model);
    // The held-out size is the ablation's own choice (its cost is paid per run); the task is the demo's.
    expect({ ...ablate.task, testSize: demo.task.testSize }).toEqual(demo.task);
    expect(ablate.rollout).toEqual(demo.rollout);
    expect(ablate.eval.greedy).toBe(false);
  });

  it('rejects an unknown arm before starting anything', async () => {
    const err: string[] = [];
    const code = await runCli(['ablate', '--variants', 'grpo,nope'], {
      out: () => undefined,
      err: (t) => err.push(t),
    });
    expect(code).toBe(2);
    expect(err.join('')).toMatch(/unknown ablation variant 'nope' \(known: grpo, c1, c1-reject, c2/);
  });
});
