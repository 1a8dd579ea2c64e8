import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { registerPolicyLoss } from '@taorl/grpo';
import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import { selectVariants } from '../src/experiments/ablate/variants.js';
import { MetricsWriter, parseConfig, type RlStepMetrics, readMetrics } from '../src/index.js';
import { filterTable } from '../src/report/filter-table.js';
import { problemSource } from '../src/session/problem-source.js';
import { openSession } from '../src/session/session.js';
import { runRl } from '../src/workflows/rl-run.js';

const root = mkdtempSync(join(tmpdir(), 'taorl-rl-algorithms-'));

/** One RL step of the tiny run (real model, sandbox, graders) with `rl` overrides; its metrics and weight change. */
async function oneStep(name: string, overrides: string[]) {
  const outDir = join(root, name);
  mkdirSync(outDir, { recursive: true });
  const text = [
    'seed: 3',
    'backend: wasm',
    `outDir: ${JSON.stringify(outDir)}`,
    'tool:',
    '  sandbox: {name: local, workers: 1, preload: []}',
    'workers: 1',
    'rollout: {maxResponseTokens: 32, maxTurns: 2, temperature: 1.0}',
    'rl: {steps: 1, groups: 2, groupSize: 4, maxGenBatches: 1, learningRate: 1.0e-3, microBatchRows: 8}',
  ].join('\n');
  const session = await openSession(parseConfig(text, `${name}.yaml`, overrides), `${name}.yaml`);
  const notices: string[] = [];
  try {
    const before = session.policy.toCheckpoint().tensors;
    const writer = new MetricsWriter(join(outDir, 'metrics.jsonl'));
    await runRl(session, await problemSource(session), writer, { quiet: true, log: (m) => notices.push(m) });
    const after = session.policy.toCheckpoint().tensors;
    let moved = 0;
    for (const [tensor, values] of before) {
      values.forEach((v, i) => {
        moved = Math.max(moved, Math.abs(after.get(tensor)![i]! - v));
      });
    }
    const lines = readMetrics(writer.path) as RlStepMetrics[];
    return { line: lines[0]!, lines, moved, notices };
  } finally {
    await session.close();
  }
}

describe('filters that act in the trainer (tiny model, real sandbox)', () => {
  it('void-turn masks what the untrained policy rambles, so selecting it changes what trains', async () => {
    // The fresh tiny model writes bytes at random: no code block, no \boxed{}; every trajectory has a void turn.
    const plain = await oneStep('plain', ['rl.filters=[]', 'rl.shaper=none']);
    expect(plain.line.voidTurnRate).toBe(1);
    expect(plain.moved).toBeGreaterThan(0);
    const masked = await oneStep('void-turn', [
      'rl.filters=[void-turn, execution-validity]',
      'rl.shaper=none',
    ]);
    expect(masked.line.voidTurnRate).toBe(1);
    expect(masked.line.filterMasks).toEqual({ 'void-turn': 8 });
    expect(masked.line.filterActions).toEqual({ 'void-turn': 8, 'execution-validity': 0 });
    // Masked, not dropped: the 8 trajectories stay in their groups, with nothing to train on; the step is refused.
    expect(masked.line.trajectoriesKept).toBe(8);
    expect(masked.line.skippedUpdates).toEqual([
      'no loss tokens in the mini-batch; weights and optimizer state left unchanged',
    ]);
    expect(masked.moved).toBe(0);
    // A filter that acted on nothing for the whole run says so.
    expect(masked.notices).toEqual([
      "rl.filters: 'execution-validity' acted on no trajectory in 1 RL step(s): it changed nothing in this run",
    ]);
    const report = filterTable(masked.lines);
    expect(report).toContain('<td>void-turn</td><td>masked</td><td>8</td>');
    expect(report).toContain('execution-validity&#39; acted on no trajectory');
  }, 120_000);

  it('a plug-in loss that is NaN: its step is refused, written as a null loss and named on stderr', async () => {
    registerPolicyLoss(
      'nan-loss',
      () =>
        ({ logProbs }) => ({ perToken: tf.mul(logProbs, Number.NaN) as tf.Tensor2D, metrics: {} }),
      { replace: true },
    );
    const { line, lines, moved, notices } = await oneStep('nan-loss', [
      'rl.loss=nan-loss',
      'rl.shaper=none',
      'rl.filters=[]',
    ]);
    expect(line.skippedUpdates).toEqual([
      'non-finite loss (NaN); weights and optimizer state left unchanged',
    ]);
    expect(moved).toBe(0);
    // JSON has no NaN: the line says null, not the 0 of a loss never computed.
    expect(lines[0]?.loss).toBeNull();
    expect(notices).toContain(
      "warning: RL step 1: policy loss 'nan-loss': 1 optimizer step(s) refused: non-finite loss (NaN); weights " +
        'and optimizer state left unchanged (the loss is written as null in metrics.jsonl)',
    );
  }, 120_000);

  it('resample-on-correct trains on size of each oversampled group, the rollouts counted', async () => {
    const { line } = await oneStep('roc', [
      'rl.filters=[{name: resample-on-correct, size: 2, minWrong: 1, minCorrect: 1}]',
      'rl.shaper=none',
    ]);
    expect(line.trajectoriesGenerated).toBe(8);
    expect(line.trajectoriesKept).toBe(4);
    const resampled = Object.values(line.filterResamples ?? {}).reduce((a, b) => a + b, 0);
    expect(resampled).toBe(4);
    expect(line.filterActions).toEqual({ 'resample-on-correct': 4 });
  }, 120_000);

  it("trains a step with the correction arm's settings, and with verl's IcePop band, normalised, chained", async () => {
    const arm = selectVariants('correction')[0]!.overrides;
    const icepop = [
      'rl.correction.threshold=0.5_2',
      'rl.correction.batchNormalize=true',
      'rl.correction.rejection=seq_mean_k3,token_k2',
      'rl.correction.rejectionThreshold=0.01,0.1',
    ];
    for (const [name, overrides] of [
      ['correction-arm', arm],
      ['correction-icepop', [...arm, ...icepop]],
    ] as const) {
      const { line, moved } = await oneStep(name, [...overrides]);
      // Local rollouts: the engine is the trained policy, so the ratios are 1 up to float32 and nothing is cut.
      expect(line.correction!.ratioMax, name).toBeCloseTo(1, 3);
      expect(line.correction!.maskedShare, name).toBe(0);
      expect(moved, name).toBeGreaterThan(0);
    }
  }, 240_000);
});
