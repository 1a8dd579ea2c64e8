import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MetricsWriter, parseConfig, type RlStepMetrics, readMetrics } from '../src/index.js';
import { problemSource } from '../src/run/problems.js';
import { runRl } from '../src/run/rl-run.js';
import { openSession } from '../src/run/session.js';

/** A tiny but complete run: real tiny model on tfjs, real sandbox, real graders, filters and updater. */
function tinyConfig(outDir: string) {
  return parseConfig(
    [
      'seed: 3',
      'backend: wasm',
      `outDir: ${JSON.stringify(outDir)}`,
      'tool:',
      '  sandbox: {name: local, workers: 2, preload: []}',
      'rollout: {maxResponseTokens: 40, maxTurns: 2, temperature: 1.0}',
      'rl:',
      '  steps: 2',
      '  groups: 2',
      '  groupSize: 4',
      '  maxGenBatches: 1',
      '  lr: 1.0e-3',
      '  filters: []',
      '  overlong: {enabled: true, bufferFraction: 0.5}',
      '  microBatch: 4',
    ].join('\n'),
    'tiny.yaml',
  );
}

async function twoSteps(outDir: string): Promise<{ lines: RlStepMetrics[]; weightDelta: number }> {
  const config = tinyConfig(outDir);
  const session = await openSession(config, 'tiny.yaml');
  try {
    const before = session.policy.toCheckpoint().tensors;
    const writer = new MetricsWriter(join(outDir, 'metrics.jsonl'));
    await runRl(session, problemSource(session), writer, { quiet: true });
    const after = session.policy.toCheckpoint().tensors;
    let weightDelta = 0;
    for (const [name, values] of before) {
      const updated = after.get(name)!;
      values.forEach((v, i) => {
        weightDelta = Math.max(weightDelta, Math.abs(updated[i]! - v));
      });
    }
    return { lines: readMetrics(writer.path) as RlStepMetrics[], weightDelta };
  } finally {
    await session.close();
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
    const firstStep = (lines: RlStepMetrics[]) => {
      const { time, tokensPerSecond, ...rest } = lines[0]!;
      return rest;
    };
    expect(firstStep(second.lines)).toEqual(firstStep(first.lines));
  });
});
