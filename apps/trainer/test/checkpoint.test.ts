import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readSafetensors } from '@taorl/model/node';
import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import {
  latestCheckpoint,
  restoreTrainCheckpoint,
  saveTrainCheckpoint,
} from '../src/checkpoint/train-checkpoint.js';
import { createTinyPolicy } from '../src/index.js';

const fixture = new URL('./fixtures/checkpoint-writer.ts', import.meta.url).pathname;

/** Starts the writer and resolves once it has saved `saves` checkpoints. */
function startWriter(runDir: string, saves: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--conditions=@taorl/source', '--import', 'tsx', fixture, runDir], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let seen = 0;
    child.stdout!.on('data', (chunk: Buffer) => {
      seen += chunk.toString().split('saved').length - 1;
      if (seen >= saves) resolve(child);
    });
    child.on('exit', (code) => reject(new Error(`writer exited early with ${code}`)));
  });
}

const killed = (child: ChildProcess) => new Promise((resolve) => child.once('exit', resolve));

describe('training checkpoints', () => {
  it('round-trips the weights, the step and the optimizer state', async () => {
    await tf.setBackend('cpu');
    const runDir = mkdtempSync(join(tmpdir(), 'taorl-ckpt-'));
    const source = createTinyPolicy({ vocabSize: 259, maxPositionEmbeddings: 64, seed: 1 });
    const target = createTinyPolicy({ vocabSize: 259, maxPositionEmbeddings: 64, seed: 2 });
    const moments = (offset: number) =>
      source
        .trainableVariables()
        .map((v, i) => Float32Array.from({ length: v.size }, (_, j) => offset + i + j / 7));
    const optimizer = { step: 12, firstMoments: moments(0.5), secondMoments: moments(2) };
    for (let step = 1; step <= 3; step++)
      await saveTrainCheckpoint(runDir, source, { phase: 'rl', step, seed: 5, runId: 'run-a' }, optimizer);
    const latest = latestCheckpoint(runDir)!;
    expect(latest).toMatchObject({ phase: 'rl', step: 3, seed: 5, optimizerStep: 12 });
    expect(await restoreTrainCheckpoint(latest, target)).toEqual(optimizer);
    const a = source.trainableVariables();
    const b = target.trainableVariables();
    for (const [i, variable] of a.entries()) expect(b[i]!.dataSync()).toEqual(variable.dataSync());
    // Only the last two checkpoints are kept.
    expect(readdirSync(join(runDir, 'checkpoints')).filter((f) => f.endsWith('.safetensors'))).toEqual([
      'rl-step-000002.safetensors',
      'rl-step-000003.safetensors',
    ]);
    source.dispose();
    target.dispose();
  });

  it('never leaves an unreadable checkpoint when the writer is killed with SIGKILL mid-write', async () => {
    await tf.setBackend('cpu');
    const runDir = mkdtempSync(join(tmpdir(), 'taorl-kill-'));
    const policy = createTinyPolicy({ vocabSize: 259, maxPositionEmbeddings: 64, seed: 3 });
    for (let round = 0; round < 3; round++) {
      const child = await startWriter(runDir, 2 + round);
      // Kill at a moment unrelated to the write cycle.
      await new Promise((resolve) => setTimeout(resolve, 7 + 13 * round));
      child.kill('SIGKILL');
      await killed(child);
      const latest = latestCheckpoint(runDir)!;
      expect(latest.step).toBeGreaterThanOrEqual(1);
      expect(await restoreTrainCheckpoint(latest, policy)).toBeNull();
      // Every weight of the checkpoint latest.json names is the value written at that step: complete, not torn.
      for (const variable of policy.trainableVariables()) {
        expect(variable.dataSync().every((v) => v === latest.step)).toBe(true);
      }
    }
    // A later save cleans up the temp files the killed writers left behind.
    await saveTrainCheckpoint(runDir, policy, { phase: 'rl', step: 999, seed: 7, runId: 'writer' });
    expect(readdirSync(join(runDir, 'checkpoints')).filter((f) => f.includes('.tmp-'))).toEqual([]);
    policy.dispose();
    // Three writer processes, each started with tsx: over the default minute on a loaded machine.
  }, 180_000);

  it('never prunes what latest.json names when the folder holds higher-numbered checkpoints of an older run', async () => {
    await tf.setBackend('cpu');
    const runDir = mkdtempSync(join(tmpdir(), 'taorl-stale-'));
    const policy = createTinyPolicy({ vocabSize: 259, maxPositionEmbeddings: 64, seed: 4 });
    // An older, longer run left steps 20 and 30; a new run into the same folder saves steps 1, 2, 3.
    for (const step of [20, 30])
      await saveTrainCheckpoint(runDir, policy, { phase: 'rl', step, seed: 1, runId: 'run-a' });
    for (let step = 1; step <= 3; step++) {
      await saveTrainCheckpoint(runDir, policy, { phase: 'rl', step, seed: 1, runId: 'run-a' });
      const latest = latestCheckpoint(runDir)!;
      expect(latest.step).toBe(step);
      expect(await restoreTrainCheckpoint(latest, policy)).toBeNull();
    }
    // The one just written and the one before it stay; the stale ones are gone.
    expect(readdirSync(join(runDir, 'checkpoints')).filter((f) => f.endsWith('.safetensors'))).toEqual([
      'rl-step-000002.safetensors',
      'rl-step-000003.safetensors',
    ]);
    policy.dispose();
  });

  it('refuses a latest.json that names a file outside the checkpoints folder, a link or a missing file', async () => {
    await tf.setBackend('cpu');
    const runDir = mkdtempSync(join(tmpdir(), 'taorl-pointer-'));
    const policy = createTinyPolicy({ vocabSize: 259, maxPositionEmbeddings: 64, seed: 4 });
    const saved = await saveTrainCheckpoint(runDir, policy, {
      phase: 'rl',
      step: 1,
      seed: 1,
      runId: 'run-a',
    });
    const outside = join(runDir, 'elsewhere.safetensors');
    copyFileSync(saved, outside);
    const pointer = join(runDir, 'checkpoints', 'latest.json');
    const point = (file: string, step = 1) =>
      writeFileSync(pointer, JSON.stringify({ phase: 'rl', step, seed: 1, file }));
    point('../elsewhere.safetensors');
    expect(() => latestCheckpoint(runDir)).toThrow(
      /names "..\/elsewhere.safetensors", not a checkpoint file/,
    );
    point(outside);
    expect(() => latestCheckpoint(runDir)).toThrow(/not a checkpoint file/);
    symlinkSync(outside, join(runDir, 'checkpoints', 'rl-step-000009.safetensors'));
    point('rl-step-000009.safetensors', 9);
    expect(() => latestCheckpoint(runDir)).toThrow(/rl-step-000009.safetensors, which is not a regular file/);
    point('rl-step-000008.safetensors', 8);
    expect(() => latestCheckpoint(runDir)).toThrow(/rl-step-000008.safetensors, which is missing/);
    policy.dispose();
  });
});

// Issue 46 findings 1 and 2: a checkpoint names its run and step and keeps its checksum; a changed file, an edited
// latest.json and a non-finite value are refused, naming the file.
describe('verified checkpoints', () => {
  const saveOne = async (label: string, edit?: (policy: ReturnType<typeof createTinyPolicy>) => void) => {
    await tf.setBackend('cpu');
    const runDir = mkdtempSync(join(tmpdir(), `taorl-${label}-`));
    const policy = createTinyPolicy({ vocabSize: 259, maxPositionEmbeddings: 64, seed: 6 });
    edit?.(policy);
    const path = await saveTrainCheckpoint(runDir, policy, { phase: 'rl', step: 1, seed: 1, runId: 'run-a' });
    return { runDir, policy, path };
  };

  it('records the run, step and SHA-256 in latest.json and the run and step in the file', async () => {
    const { runDir, policy, path } = await saveOne('recorded');
    const latest = latestCheckpoint(runDir)!;
    expect(latest).toMatchObject({ phase: 'rl', step: 1, runId: 'run-a' });
    expect(latest.sha256).toBe(createHash('sha256').update(readFileSync(path)).digest('hex'));
    expect((await readSafetensors(path)).metadata).toMatchObject({ runId: 'run-a', phase: 'rl', step: '1' });
    policy.dispose();
  });

  it('refuses a checkpoint with 64 bytes changed in its middle, naming the file and both checksums', async () => {
    const { runDir, policy, path } = await saveOne('flipped');
    const bytes = readFileSync(path);
    const middle = Math.floor(bytes.length / 2);
    for (let i = middle; i < middle + 64; i++) bytes[i] = bytes[i]! ^ 0xff;
    writeFileSync(path, bytes);
    const before = policy.trainableVariables().map((variable) => variable.dataSync().slice());
    await expect(restoreTrainCheckpoint(latestCheckpoint(runDir)!, policy)).rejects.toThrow(
      new RegExp(
        `^${path}: its SHA-256 is [0-9a-f]{64}, latest.json recorded [0-9a-f]{64}: the file changed`,
      ),
    );
    // Nothing of it reached the policy.
    expect(policy.trainableVariables().map((variable) => variable.dataSync())).toEqual(before);
    policy.dispose();
  });

  it('refuses a latest.json edited to a step its file is not', async () => {
    const { runDir, policy } = await saveOne('step99');
    const pointer = join(runDir, 'checkpoints', 'latest.json');
    writeFileSync(pointer, JSON.stringify({ ...JSON.parse(readFileSync(pointer, 'utf8')), step: 99 }));
    expect(() => latestCheckpoint(runDir)).toThrow(
      `${pointer}: says rl step 99 but names rl-step-000001.safetensors, not rl-step-000099.safetensors`,
    );
    policy.dispose();
  });

  it('names the file and the tensor when a checkpoint holds a NaN', async () => {
    const { runDir, policy, path } = await saveOne('nan', (edited) => {
      const variable = edited.trainableVariables()[2]!;
      const values = variable.dataSync().slice();
      values[5] = Number.NaN;
      variable.assign(tf.tensor(values, variable.shape));
    });
    await expect(restoreTrainCheckpoint(latestCheckpoint(runDir)!, policy)).rejects.toThrow(
      `${path}: policy.2[5] is NaN, not a finite number`,
    );
    policy.dispose();
  });
});
