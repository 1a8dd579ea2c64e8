import { execFileSync } from 'node:child_process';
import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { latestCheckpoint } from '../src/checkpoint/train-checkpoint.js';
import type { RunRecord } from '../src/config/run-record.js';
import { loadConfig, readMetrics, runCli } from '../src/index.js';
import { LOCK_FILE } from '../src/util/folder-lock.js';
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
const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8'));
const editJson = (path: string, edit: (value: Record<string, unknown>) => void) => {
  const value = readJson(path);
  edit(value);
  writeFileSync(path, JSON.stringify(value));
};

describe('taorl sft|rl and the run already in outDir', () => {
  it('refuses a new run into a run folder unless --overwrite, and resumes past a cut-off metrics line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'taorl-run-folder-'));
    const first = await sft(dir);
    expect(first.code, first.err).toBe(0);
    expect(loadConfig(join(dir, 'run-config.json')).sft.steps).toBe(2);
    // Issue 46 finding 1: the run has an id, which its checkpoints record.
    const firstRun = readJson(join(dir, 'run-config.json')).runId;
    expect(firstRun).toMatch(/^[0-9a-f-]{36}$/);
    expect(latestCheckpoint(dir)!.runId).toBe(firstRun);
    const firstCheckpoints = join(mkdtempSync(join(tmpdir(), 'taorl-other-run-')), 'checkpoints');
    cpSync(join(dir, 'checkpoints'), firstCheckpoints, { recursive: true });

    // A new run into it: refused before anything starts, naming both ways out.
    const again = await sft(dir);
    expect(again.code).toBe(2);
    expect(again.err).toContain(
      `outDir: ${dir} holds a run with checkpoints: continue it with --resume, or pass`,
    );
    expect(again.err).toContain('--overwrite');

    // The disk filled up during an append: the last line is cut off. --resume drops it with a warning.
    appendFileSync(join(dir, 'metrics.jsonl'), '{"phase":"sft","step":3,"loss":0.4');
    // A run from before run ids and checksums were kept is resumed with a warning, and gets an id.
    editJson(join(dir, 'checkpoints', 'latest.json'), (pointer) => {
      delete pointer.runId;
      delete pointer.sha256;
    });
    editJson(join(dir, 'run-config.json'), (record) => {
      delete record.runId;
    });
    // workers defaults to the machine's cores: a run resumed on another machine changes it.
    const workers = availableParallelism() > 1 ? 1 : 2;
    const resumed = await sft(dir, '--resume', '--set', 'sft.minutes=1', '--set', `workers=${workers}`);
    expect(resumed.code, resumed.err).toBe(0);
    expect(resumed.err).toMatch(/warning: .*metrics\.jsonl:3: dropped a cut-off last line/);
    expect(resumed.err).toContain(
      `warning: ${join(dir, 'checkpoints', 'latest.json')} records no run id and no checksum (a checkpoint saved ` +
        "before they were kept): resumed without checking that it is this run's and intact",
    );
    expect(steps(dir)).toEqual([1, 2]);
    // sft.minutes and workers are operational: recorded, not refused.
    const changed = JSON.parse(readFileSync(join(dir, 'run-config.json'), 'utf8')) as RunRecord;
    expect(changed.runId).toMatch(/^[0-9a-f-]{36}$/);
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
    // It says what it deleted (issue 51).
    expect(fresh.out).toContain(
      `--overwrite: deleted ${join(dir, 'checkpoints')}, ${join(dir, 'metrics.jsonl')}, ${join(dir, 'run-config.json')}`,
    );
    const latest = latestCheckpoint(dir)!;
    expect(latest).toMatchObject({ phase: 'sft', step: 1 });
    expect(existsSync(latest.path)).toBe(true);
    expect(steps(dir)).toEqual([1]);

    // Issue 46 finding 1: the first run's checkpoints (same seed, more steps) put into the new run's folder are
    // refused, naming both runs, before anything starts.
    const freshRun = readJson(join(dir, 'run-config.json')).runId;
    expect(freshRun).not.toBe(firstRun);
    rmSync(join(dir, 'checkpoints'), { recursive: true });
    cpSync(firstCheckpoints, join(dir, 'checkpoints'), { recursive: true });
    const mixed = await sft(dir, '--resume');
    expect(mixed.code).toBe(2);
    expect(mixed.err).toContain(
      `outDir: cannot resume: ${join(dir, 'checkpoints', 'latest.json')} names run ${firstRun}, ` +
        `${join(dir, 'run-config.json')} names run ${freshRun}: the checkpoints are another run's`,
    );
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

    // Issue 51: a finished run resumed says so (no 0/0 progress bar); fewer steps than it has done is refused
    // (it was recorded as 2 -> 1 with a progress bar of 0/-1), naming the field and the run's own record.
    const complete = await sft(dir, '--resume', '--set', 'sft.learningRate=0.002');
    expect(complete.code, complete.err).toBe(0);
    expect(complete.out).toContain('SFT: the run is complete (2 of 2 steps); nothing to train');
    expect(complete.err).not.toMatch(/0\/0|0\/-/);
    const fewer = await sft(dir, '--resume', '--allow-config-change', '--set', 'sft.steps=1');
    expect(fewer.code).toBe(2);
    expect(fewer.err).toContain(
      `sft.steps: is 1, but the run being resumed in ${dir} has done 2 steps: set sft.steps to 2 or more ` +
        `(resuming with -c ${join(dir, 'run-config.json')} keeps the recorded value)`,
    );
    expect(steps(dir)).toEqual([1, 2]);
    expect(loadConfig(join(dir, 'run-config.json')).sft.steps).toBe(2);

    // A latest.json pointing outside the checkpoints folder is refused, not followed.
    const pointer = join(dir, 'checkpoints', 'latest.json');
    const pointerText = readFileSync(pointer, 'utf8');
    writeFileSync(
      pointer,
      JSON.stringify({ phase: 'sft', step: 2, seed: 1, file: '../../outside.safetensors', optimizerStep: 2 }),
    );
    const outside = await sft(dir, '--resume');
    expect(outside.code).toBe(2);
    expect(outside.err).toContain('outDir: cannot resume:');
    expect(outside.err).toContain('not a checkpoint file of');

    // Issue 46 findings 1 and 2: latest.json edited to a step past the checkpoints there, then the checkpoint file
    // changed in its middle: both refused, naming the file and what differs.
    writeFileSync(pointer, pointerText);
    editJson(pointer, (value) => {
      value.step = 99;
    });
    const past = await sft(dir, '--resume');
    expect(past.code).toBe(2);
    expect(past.err).toContain(`${pointer}: says sft step 99 but names sft-step-000002.safetensors`);
    writeFileSync(pointer, pointerText);
    const weights = join(dir, 'checkpoints', 'sft-step-000002.safetensors');
    const bytes = readFileSync(weights);
    const middle = Math.floor(bytes.length / 2);
    for (let i = middle; i < middle + 64; i++) bytes[i] = bytes[i]! ^ 0xff;
    writeFileSync(weights, bytes);
    const corrupt = await sft(dir, '--resume', '--set', 'sft.learningRate=0.002');
    expect(corrupt.code, corrupt.err).toBe(1);
    expect(corrupt.err).toContain(`${weights}: its SHA-256 is `);
    expect(corrupt.err).toContain('the file changed after it was saved');
    expect(steps(dir)).toEqual([1, 2]);
  }, 300_000);

  // Issue 46 finding 3: a link to /dev/zero or /dev/null, or a FIFO, where the run reads or writes a file.
  it('refuses a run folder whose run files are not regular files, naming the file, and leaves no lock', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'taorl-special-files-'));
    const metrics = join(dir, 'metrics.jsonl');
    const refused = async (what: string, ...args: string[]) => {
      const run = await sft(dir, ...args);
      expect(run.code, run.err).toBe(2);
      expect(run.err).toContain(
        `outDir: ${what}, not a regular file: a run keeps only regular files it created`,
      );
      expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
    };
    symlinkSync('/dev/zero', metrics);
    await refused(`${metrics} is a symbolic link`);
    await refused(`${metrics} is a symbolic link`, '--resume');
    rmSync(metrics);
    execFileSync('mkfifo', [metrics]);
    await refused(`${metrics} is a FIFO (named pipe)`);
    rmSync(metrics);
    mkdirSync(join(dir, 'policy'));
    symlinkSync('/dev/null', join(dir, 'policy', 'model.safetensors'));
    await refused(`${join(dir, 'policy', 'model.safetensors')} is a symbolic link`);
  }, 120_000);
});
