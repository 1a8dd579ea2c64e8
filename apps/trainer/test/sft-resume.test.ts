import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { latestCheckpoint } from '../src/checkpoint/train-checkpoint.js';
import { MetricsWriter, parseConfig, readMetrics, runCli, type SftStepMetrics } from '../src/index.js';
import { openSession } from '../src/session/session.js';
import { runSft, sftExamples } from '../src/workflows/sft-run.js';
import { capture } from './support/capture-io.js';

/** Four SFT steps of 4 traces, a checkpoint every 2. */
const overrides = [
  'sft.steps=4',
  'sft.examples=16',
  'sft.batchSize=4',
  'sft.checkpointEvery=2',
  'tool.sandbox={name: local, workers: 1, preload: []}',
];
const sets = overrides.flatMap((assignment) => ['--set', assignment]);
const untimed = ({ time: _time, tokensPerSecond: _speed, ...rest }: SftStepMetrics) => rest;

describe('taorl sft checkpoints', () => {
  it('resumes after a stop at step 2 and ends with the same weights and metrics as an unbroken run', async () => {
    const unbroken = mkdtempSync(join(tmpdir(), 'taorl-sft-'));
    const a = capture();
    expect(await runCli(['sft', ...sets, '--out', unbroken], a.io), a.err.join('')).toBe(0);
    expect(latestCheckpoint(unbroken)).toMatchObject({ phase: 'sft', step: 4, optimizerStep: 4 });

    // The same run stopped after 2 of its 4 steps (same schedule), then `taorl sft --resume`.
    const stopped = mkdtempSync(join(tmpdir(), 'taorl-sft-stopped-'));
    const config = parseConfig('{}', 'test', [...overrides, `outDir=${JSON.stringify(stopped)}`]);
    const session = await openSession(config, 'test');
    try {
      const trainer = await runSft(
        session,
        await sftExamples(session),
        new MetricsWriter(join(stopped, 'metrics.jsonl')),
        { steps: 2, minutes: 0, quiet: true, checkpoints: { runDir: stopped, runId: 'stopped' } },
      );
      await trainer.dispose();
    } finally {
      await session.close();
    }
    expect(latestCheckpoint(stopped)).toMatchObject({ phase: 'sft', step: 2 });
    const b = capture();
    expect(await runCli(['sft', ...sets, '--resume', '--out', stopped], b.io), b.err.join('')).toBe(0);
    expect(b.out.join('')).toMatch(/Resuming after SFT step 2/);

    const lines = (dir: string) => (readMetrics(join(dir, 'metrics.jsonl')) as SftStepMetrics[]).map(untimed);
    expect(lines(stopped)).toEqual(lines(unbroken));
    expect(lines(stopped).map((line) => line.step)).toEqual([1, 2, 3, 4]);
    const weights = (dir: string) => readFileSync(join(dir, 'policy', 'model.safetensors'));
    expect(weights(stopped).equals(weights(unbroken))).toBe(true);
  }, 300_000);

  it('refuses to resume from another seed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'taorl-sft-seed-'));
    expect(await runCli(['sft', ...sets, '--out', dir], capture().io)).toBe(0);
    const other = capture();
    expect(await runCli(['sft', ...sets, '--set', 'seed=2', '--resume', '--out', dir], other.io)).toBe(2);
    expect(other.err.join('')).toMatch(/seed: the checkpoint in .* is sft seed 1/);
  }, 300_000);
});
