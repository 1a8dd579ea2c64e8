import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../src/config/config-error.js';
import { parseConfig } from '../src/config/load-config.js';
import { planRun } from '../src/workflows/run-folder.js';

// Fields renamed to the options they set (rl.lr -> rl.learningRate, ...) are still read under the old name for
// one minor version, with a warning; a run recorded under the old names resumes.

function parsed(text: string, overrides: string[] = []) {
  const notices: string[] = [];
  const config = parseConfig(text, 'old.yaml', overrides, (notice) => notices.push(notice));
  return { config, notices };
}

/** A run folder with an SFT checkpoint at step 2, for the config `extra` (YAML) adds to; its record is the caller's. */
function checkpointedRun(extra: string) {
  const outDir = mkdtempSync(join(tmpdir(), 'taorl-renamed-'));
  const { config } = parsed(`outDir: ${JSON.stringify(outDir)}\n${extra}`);
  const checkpoints = join(outDir, 'checkpoints');
  mkdirSync(checkpoints);
  const file = 'sft-step-000002.safetensors';
  writeFileSync(join(checkpoints, file), '');
  writeFileSync(
    join(checkpoints, 'latest.json'),
    JSON.stringify({ phase: 'sft', step: 2, seed: config.seed, file }),
  );
  return { outDir, config };
}

describe('renamed config fields', () => {
  it('reads the old names as the new ones and warns once per name, in files and in --set', () => {
    const { config, notices } = parsed('sft:\n  lr: 0.01\nrl:\n  lr: 3.0e-4\n  microBatch: 8\n', [
      'rl.gradClip=0.5',
    ]);
    expect(config.sft.learningRate).toBe(0.01);
    expect([config.rl.learningRate, config.rl.microBatchRows, config.rl.maxGradNorm]).toEqual([3e-4, 8, 0.5]);
    expect(config.rl).not.toHaveProperty('lr');
    const notice = (old: string, now: string) =>
      `${old} is now ${now}; the old name is read until the next minor version`;
    expect(notices).toEqual([
      `old.yaml: ${notice('sft.lr', 'sft.learningRate')}`,
      `old.yaml: ${notice('rl.lr', 'rl.learningRate')}`,
      `old.yaml: ${notice('rl.microBatch', 'rl.microBatchRows')}`,
      `--set rl.gradClip=0.5: ${notice('rl.gradClip', 'rl.maxGradNorm')}`,
    ]);
    // The new names give the same config and no notice.
    const current = parsed('sft:\n  learningRate: 0.01\nrl:\n  learningRate: 3.0e-4\n  microBatchRows: 8\n', [
      'rl.maxGradNorm=0.5',
    ]);
    expect(current.config).toEqual(config);
    expect(current.notices).toEqual([]);
  });

  it('refuses both names of one field, naming the old one', () => {
    let error: unknown;
    try {
      parsed('rl:\n  lr: 1.0e-4\n  learningRate: 2.0e-4\n');
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toBe(
      'old.yaml: rl.lr: renamed to rl.learningRate, which is given too: keep only rl.learningRate',
    );
  });

  it('resumes a run recorded under the old names without a config change', () => {
    const { outDir, config } = checkpointedRun('');
    // The record as a run before the rename wrote it.
    const { learningRate: sftLr, ...sft } = config.sft;
    const { learningRate, maxGradNorm, microBatchRows, ...rl } = config.rl;
    const recorded = {
      ...config,
      sft: { ...sft, lr: sftLr },
      rl: { ...rl, lr: learningRate, gradClip: maxGradNorm, microBatch: microBatchRows },
    };
    writeFileSync(join(outDir, 'run-config.json'), JSON.stringify({ config: recorded, changes: [] }));
    const flags = { resume: true, overwrite: false, allowConfigChange: false };
    expect(planRun(config, 'old.yaml', 'sft', flags).changes).toEqual([]);
    // A real difference is still one, under the new name.
    const changed = { ...config, rl: { ...config.rl, learningRate: 1 } };
    expect(() => planRun(changed, 'old.yaml', 'sft', flags)).toThrow(
      /rl\.learningRate: differs from the run/,
    );
  });
  it('reads rollout.workers and sft.workers as the one pool, workers, with the notice naming it', () => {
    const notice = (old: string) =>
      `${old} is now workers; the old name is read until the next minor version`;
    const rollout = parsed('rollout:\n  workers: 3\n');
    expect(rollout.config.workers).toBe(3);
    expect(rollout.config.rollout).not.toHaveProperty('workers');
    expect(rollout.notices).toEqual([`old.yaml: ${notice('rollout.workers')}`]);
    const sft = parsed('seed: 1\n', ['sft.workers=2']);
    expect(sft.config.workers).toBe(2);
    expect(sft.config.sft).not.toHaveProperty('workers');
    expect(sft.notices).toEqual([`--set sft.workers=2: ${notice('sft.workers')}`]);
    // Both old names (as every config written for the two pools could have them): the larger pool, two notices.
    const both = parsed('rollout:\n  workers: 2\nsft:\n  workers: 4\n');
    expect(both.config.workers).toBe(4);
    expect(both.notices).toEqual([
      `old.yaml: ${notice('rollout.workers')}`,
      `old.yaml: ${notice('sft.workers')}`,
    ]);
    // The new name alone: no notice.
    expect(parsed('workers: 4\n')).toEqual({ config: both.config, notices: [] });
    // An old value out of range is still refused under the field it now sets.
    expect(() => parsed('sft:\n  workers: 0\n')).toThrow(/workers/);
  });

  it('refuses workers beside an old name of it, naming the old one', () => {
    expect(() => parsed('workers: 2\nrollout:\n  workers: 2\n')).toThrow(
      new ConfigError(
        'old.yaml',
        'rollout.workers',
        'renamed to workers, which is given too: keep only workers',
      ),
    );
  });

  it('resumes a run recorded with rollout.workers and sft.workers; workers stays operational', () => {
    const { outDir, config } = checkpointedRun('workers: 2\n');
    // The record as a run before the rename wrote it: both pools, the rollout one the larger.
    const { workers, ...rest } = config;
    const recorded = {
      ...rest,
      rollout: { ...config.rollout, workers },
      sft: { ...config.sft, workers: 1 },
    };
    writeFileSync(join(outDir, 'run-config.json'), JSON.stringify({ config: recorded, changes: [] }));
    const flags = { resume: true, overwrite: false, allowConfigChange: false };
    expect(planRun(config, 'old.yaml', 'sft', flags).changes).toEqual([]);
    // Another pool size on resume is recorded, not refused.
    expect(planRun({ ...config, workers: 3 }, 'old.yaml', 'sft', flags).changes).toEqual([
      { field: 'workers', before: 2, after: 3 },
    ]);
  });
});
