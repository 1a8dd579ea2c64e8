import { appendFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { latestCheckpoint } from '../src/checkpoint/train-checkpoint.js';
import type { RunRecord } from '../src/config/run-record.js';
import { loadConfig, readMetrics, runCli } from '../src/index.js';
import { capture } from './support/capture-io.js';

/** Two SFT steps of 4 traces, a checkpoint every step. */
const sets = [
  'sft.steps=2',
  'sft.examples=16',
  'sft.batchSize=4',
  'sft.checkpointEvery=1',
  'tool.sandbox={name: local, workers: 1, preload: []}',
].flatMap((assignment) => ['--set', assignment]);

async function sft(dir: string, ...args: string[]) {
  const run = capture();
  const code = await runCli(['sft', ...sets, ...args, '--out', dir], run.io);
  return { code, out: run.out.join(''), err: run.err.join('') };
}

const steps = (dir: string) => readMetrics(join(dir, 'metrics.jsonl')).map((line) => line.step);

describe('taorl sft|rl and the run already in outDir', () => {
  it('refuses a new run into a run folder unless --overwrite, and resumes past a cut-off metrics line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'taorl-run-folder-'));
    const first = await sft(dir);
    expect(first.code, first.err).toBe(0);
    expect(loadConfig(join(dir, 'run-config.json')).sft.steps).toBe(2);

    // A new run into it: refused before anything starts, naming both ways out.
    const again = await sft(dir);
    expect(again.code).toBe(2);
    expect(again.err).toContain(
      `outDir: ${dir} holds a run with checkpoints: continue it with --resume, or pass`,
    );
    expect(again.err).toContain('--overwrite');

    // The disk filled up during an append: the last line is cut off. --resume drops it with a warning.
    appendFileSync(join(dir, 'metrics.jsonl'), '{"phase":"sft","step":3,"loss":0.4');
    // workers defaults to the machine's cores: a run resumed on another machine changes it.
    const workers = availableParallelism() > 1 ? 1 : 2;
    const resumed = await sft(dir, '--resume', '--set', 'sft.minutes=1', '--set', `workers=${workers}`);
    expect(resumed.code, resumed.err).toBe(0);
    expect(resumed.err).toMatch(/warning: .*metrics\.jsonl:3: dropped a cut-off last line/);
    expect(steps(dir)).toEqual([1, 2]);
    // sft.minutes and workers are operational: recorded, not refused.
    const changed = JSON.parse(readFileSync(join(dir, 'run-config.json'), 'utf8')) as RunRecord;
    expect(changed.changes).toEqual([
      {
        phase: 'sft',
        afterStep: 2,
        fields: [
          { field: 'workers', before: availableParallelism(), after: workers },
          { field: 'sft.minutes', before: 0, after: 1 },
        ],
      },
    ]);

    // --overwrite starts clean: the new run's checkpoints are all there and latest.json names one of them.
    const fresh = await sft(dir, '--overwrite', '--set', 'sft.steps=1');
    expect(fresh.code, fresh.err).toBe(0);
    const latest = latestCheckpoint(dir)!;
    expect(latest).toMatchObject({ phase: 'sft', step: 1 });
    expect(existsSync(latest.path)).toBe(true);
    expect(steps(dir)).toEqual([1]);
  }, 300_000);

  it('refuses to resume with a changed config unless --allow-config-change, and records the change', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'taorl-run-config-'));
    expect((await sft(dir, '--set', 'sft.steps=1')).code).toBe(0);
    const refused = await sft(dir, '--resume', '--set', 'sft.learningRate=0.002');
    expect(refused.code).toBe(2);
    expect(refused.err).toContain('sft.steps, sft.learningRate: differs from the run being resumed');
    expect(refused.err).toContain('sft.learningRate 0.001 -> 0.002');
    expect(refused.err).toContain('--allow-config-change');
    const allowed = await sft(dir, '--resume', '--allow-config-change', '--set', 'sft.learningRate=0.002');
    expect(allowed.code, allowed.err).toBe(0);
    expect(allowed.err).toContain(
      'warning: resuming with a changed config: sft.steps 1 -> 2; sft.learningRate 0.001 -> 0.002',
    );
    expect(steps(dir)).toEqual([1, 2]);
    const record = JSON.parse(readFileSync(join(dir, 'run-config.json'), 'utf8')) as RunRecord;
    expect(loadConfig(join(dir, 'run-config.json')).sft.learningRate).toBe(0.002);
    expect(record.changes[0]!.fields.map((change) => change.field)).toEqual([
      'sft.steps',
      'sft.learningRate',
    ]);

    // A latest.json pointing outside the checkpoints folder is refused, not followed.
    const pointer = join(dir, 'checkpoints', 'latest.json');
    writeFileSync(
      pointer,
      JSON.stringify({ phase: 'sft', step: 2, seed: 1, file: '../../outside.safetensors', optimizerStep: 2 }),
    );
    const outside = await sft(dir, '--resume');
    expect(outside.code).toBe(2);
    expect(outside.err).toContain('outDir: cannot resume:');
    expect(outside.err).toContain('not a checkpoint file of');
  }, 300_000);
});
