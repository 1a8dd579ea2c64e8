import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runAblation } from '../../src/ablate/run-ablation.js';
import type { CliLauncher } from '../../src/ablate/run-queue.js';
import { selectVariants } from '../../src/ablate/variants.js';
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
    const table = JSON.parse(readFileSync(result.paths.json, 'utf8')) as {
      rows: { variant: string; avgAtK: { mean: number; n: number } }[];
    };
    for (const arm of ['grpo', 'tao-rl']) {
      const row = table.rows.find((r) => r.variant === arm)!;
      expect(row.avgAtK.n).toBe(2);
      expect(row.avgAtK.mean).toBeCloseTo((afterRl(arm, 1).accuracy + afterRl(arm, 2).accuracy) / 2, 12);
    }
    // The arms really ran different configurations: no bonus without the shaper.
    const rlLines = (arm: string) =>
      readMetrics(join(outDir, 'runs', arm, 'seed-1', 'metrics.jsonl')).filter(
        (line): line is RlStepMetrics => line.phase === 'rl',
      );
    expect(rlLines('grpo').every((line) => line.bonus.tokens === 0)).toBe(true);
    expect(rlLines('grpo')).toHaveLength(2);
    // The 2 children at a time share the cores' rollout workers.
    const record = JSON.parse(
      readFileSync(join(outDir, 'runs', 'grpo', 'seed-1', 'run-config.json'), 'utf8'),
    );
    expect(record.config.rollout.workers).toBe(Math.max(1, Math.floor(availableParallelism() / 2)));
    expect(result.markdown).toMatch(/\| SFT start \(no RL\) \| 2 \|/);
    expect(readFileSync(result.paths.html, 'utf8')).toContain('<svg');
    expect(readFileSync(join(outDir, 'charts', 'train-accuracy.svg'), 'utf8')).toMatch(/^<svg/);

    // A second invocation resumes: SFT, 2 start evaluations and 4 RL runs are all done already.
    log.length = 0;
    await runAblation(options);
    expect(log.filter((line) => line.startsWith('skip'))).toHaveLength(7);
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
    ).rejects.toThrow(/2 run\(s\) failed: start seed 1 \(log .*log\.txt\); grpo seed 1/);
  }, 120_000);

  it('rejects an unknown arm before starting anything', async () => {
    const err: string[] = [];
    const code = await runCli(['ablate', '--variants', 'grpo,nope'], {
      out: () => undefined,
      err: (t) => err.push(t),
    });
    expect(code).toBe(2);
    expect(err.join('')).toMatch(/unknown ablation variant 'nope' \(known: grpo, c1, c2/);
  });
});
