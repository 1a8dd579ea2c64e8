import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { latestCheckpoint, restoreTrainCheckpoint } from '../src/checkpoint/train-checkpoint.js';
import { MetricsWriter, parseConfig, type RlStepMetrics, readMetrics } from '../src/index.js';
import { problemSource } from '../src/run/problems.js';
import { runRl } from '../src/run/rl-run.js';
import { openSession } from '../src/run/session.js';

/** A metrics line without its wall-clock fields. */
function untimed(line: RlStepMetrics) {
  const { time, tokensPerSecond, ...rest } = line;
  return rest;
}

/** A tiny but complete run: real tiny model on tfjs, real sandbox, real graders, filters and updater. */
function configText(outDir: string): string {
  return [
    'seed: 3',
    'backend: wasm',
    `outDir: ${JSON.stringify(outDir)}`,
    'tool:',
    '  sandbox: {name: local, workers: 2, preload: []}',
    // Generation on the main thread: 5 sessions would each start worker threads (seconds each, from the sources);
    // rollout-workers.test.ts runs RL steps on them.
    'rollout: {maxResponseTokens: 40, maxTurns: 2, temperature: 1.0, workers: 1}',
    'rl:',
    '  steps: 2',
    '  groups: 2',
    '  groupSize: 4',
    '  maxGenBatches: 1',
    '  learningRate: 1.0e-3',
    '  filters: []',
    '  overlong: {enabled: true, bufferFraction: 0.5}',
    '  microBatchRows: 4',
  ].join('\n');
}

function tinyConfig(outDir: string) {
  return parseConfig(configText(outDir), 'tiny.yaml');
}

interface RunResult {
  lines: RlStepMetrics[];
  finalWeights: Map<string, Float32Array>;
}

async function twoSteps(outDir: string): Promise<RunResult & { weightDelta: number }> {
  const config = tinyConfig(outDir);
  const session = await openSession(config, 'tiny.yaml');
  try {
    const before = session.policy.toCheckpoint().tensors;
    const writer = new MetricsWriter(join(outDir, 'metrics.jsonl'));
    await runRl(session, await problemSource(session), writer, { quiet: true });
    const after = session.policy.toCheckpoint().tensors;
    let weightDelta = 0;
    for (const [name, values] of before) {
      const updated = after.get(name)!;
      values.forEach((v, i) => {
        weightDelta = Math.max(weightDelta, Math.abs(updated[i]! - v));
      });
    }
    return { lines: readMetrics(writer.path) as RlStepMetrics[], weightDelta, finalWeights: after };
  } finally {
    await session.close();
  }
}

async function resumedRun(outDir: string): Promise<RunResult> {
  const writer = new MetricsWriter(join(outDir, 'metrics.jsonl'));
  const interrupted = await openSession(
    parseConfig(configText(outDir), 'tiny.yaml', ['rl.steps=1']),
    'tiny.yaml',
  );
  try {
    await runRl(interrupted, await problemSource(interrupted), writer, {
      quiet: true,
      checkpointDir: outDir,
    });
  } finally {
    await interrupted.close();
  }
  const resumed = await openSession(tinyConfig(outDir), 'tiny.yaml');
  try {
    const latest = latestCheckpoint(outDir)!;
    const optimizerState = await restoreTrainCheckpoint(latest, resumed.policy);
    expect(optimizerState?.step).toBe(1);
    writer.truncateAfter((line) => line.step <= latest.step);
    await runRl(resumed, await problemSource(resumed), writer, {
      quiet: true,
      completed: latest.step,
      checkpointDir: outDir,
      optimizerState,
    });
    return {
      lines: readMetrics(writer.path) as RlStepMetrics[],
      finalWeights: resumed.policy.toCheckpoint().tensors,
    };
  } finally {
    await resumed.close();
  }
}

describe('RL loop end to end (tiny model, real sandbox)', () => {
  it('runs two steps, writes one metrics line per step, and is deterministic for a seed', async () => {
    const first = await twoSteps(mkdtempSync(join(tmpdir(), 'taorl-rl-')));
    expect(first.lines.map((line) => line.step)).toEqual([1, 2]);
    for (const line of first.lines) {
      expect(line.phase).toBe('rl');
      expect(line.trajectoriesKept).toBe(8);
      expect(line.groupsKept).toBe(2);
      for (const value of [line.reward, line.entropy, line.loss, line.gradNorm, line.tokensPerSecond]) {
        expect(Number.isFinite(value)).toBe(true);
      }
      expect(line.entropy).toBeGreaterThan(0);
      // The overlong penalty separates long from short responses, so the random policy gets a gradient.
      const { generationMs, sandboxMs, scoringMs, trainingMs, totalMs } = line.time;
      expect(generationMs + sandboxMs + scoringMs + trainingMs).toBeLessThanOrEqual(totalMs + 1);
      expect(trainingMs).toBeGreaterThan(0);
    }
    expect(first.weightDelta).toBeGreaterThan(0);

    const second = await twoSteps(mkdtempSync(join(tmpdir(), 'taorl-rl-')));
    expect(untimed(second.lines[0]!)).toEqual(untimed(first.lines[0]!));

    // Stopped after step 1 and resumed from its checkpoint: the same lines as the uninterrupted run, and, because
    // the optimizer's moments and step were restored too, bit-identical weights after step 2.
    const resumed = await resumedRun(mkdtempSync(join(tmpdir(), 'taorl-resume-')));
    expect(resumed.lines.map(untimed)).toEqual(first.lines.map(untimed));
    expect(resumed.finalWeights).toEqual(first.finalWeights);
  });
});
