import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rlStep } from '@taorl/rl';
import type { RolloutPolicy } from '@taorl/rollout';
import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import { latestCheckpoint, restoreTrainCheckpoint } from '../src/checkpoint/train-checkpoint.js';
import { curateProblems, MetricsWriter, parseConfig, type RlStepMetrics, readMetrics } from '../src/index.js';
import { problemSource } from '../src/session/problem-source.js';
import { openSession } from '../src/session/session.js';
import { rlContext, runRl } from '../src/workflows/rl-run.js';
import { trainRl } from '../src/workflows/train.js';

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
    'workers: 1',
    'rollout: {maxResponseTokens: 40, maxTurns: 2, temperature: 1.0}',
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

const quietIO = { out: () => undefined, err: () => undefined };

/** Stopped after step 1 (a run with rl.steps 1), then continued to step 2 by `trainRl` with resume. */
async function resumedRun(outDir: string): Promise<RunResult> {
  const interrupted = await openSession(
    parseConfig(configText(outDir), 'tiny.yaml', ['rl.steps=1']),
    'tiny.yaml',
  );
  const newRun = { resume: false, overwrite: false, allowConfigChange: false };
  try {
    await trainRl(interrupted, { run: newRun, quiet: true }, quietIO);
  } finally {
    await interrupted.close();
  }
  const resumed = await openSession(tinyConfig(outDir), 'tiny.yaml');
  try {
    const optimizerState = await restoreTrainCheckpoint(latestCheckpoint(outDir)!, resumed.policy);
    expect(optimizerState?.step).toBe(1);
    const result = await trainRl(resumed, { run: { ...newRun, resume: true }, quiet: true }, quietIO);
    return {
      lines: result.metrics as RlStepMetrics[],
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
    // docs/trainer.md lists every field an RL line has (issue 51: strategies was missing).
    const documented = readFileSync(new URL('../../../docs/trainer.md', import.meta.url), 'utf8')
      .split('\n')
      .find((row) => row.startsWith('| `rl` |'))!;
    const fields = Object.keys(first.lines[0]!).filter((field) => field !== 'phase' && field !== 'step');
    expect(fields.filter((field) => !new RegExp(`\\b${field}\\b`).test(documented))).toEqual([]);

    const second = await twoSteps(mkdtempSync(join(tmpdir(), 'taorl-rl-')));
    expect(untimed(second.lines[0]!)).toEqual(untimed(first.lines[0]!));

    // Stopped after step 1 and resumed from its checkpoint: the same lines as the uninterrupted run, and, because
    // the optimizer's moments and step were restored too, bit-identical weights after step 2.
    const resumed = await resumedRun(mkdtempSync(join(tmpdir(), 'taorl-resume-')));
    expect(resumed.lines.map(untimed)).toEqual(first.lines.map(untimed));
    expect(resumed.finalWeights).toEqual(first.finalWeights);
  });
});

describe('RL steps and tensor memory (tiny model, real sandbox)', () => {
  it('keeps no tensor from one step to the next once the optimizer state exists', async () => {
    const session = await openSession(
      parseConfig(configText(mkdtempSync(join(tmpdir(), 'taorl-rl-memory-'))), 'tiny.yaml', ['rl.steps=4']),
      'tiny.yaml',
    );
    try {
      const { context, updater } = rlContext(session, await problemSource(session), () => undefined);
      await context.sync.start(0);
      const tensorsAfter: number[] = [];
      for (let step = 1; step <= 4; step++) {
        const line = await rlStep(context, step);
        expect(line.trajectoriesKept).toBe(8); // every step trains, so every step runs the optimizer
        tensorsAfter.push(tf.memory().numTensors);
      }
      updater.dispose();
      await context.sync.close();
      // Step 1 creates the optimizer's moments; from then on a step that leaked would add tensors every time.
      expect(tensorsAfter.slice(1)).toEqual([tensorsAfter[0], tensorsAfter[0], tensorsAfter[0]]);
    } finally {
      await session.close();
    }
  });
});

describe('curation end to end (tiny model, real sandbox, real grader)', () => {
  it('scores each problem over its samples, keeps 0 < pass rate < 1 and writes them to curated.jsonl', async () => {
    const outDir = mkdtempSync(join(tmpdir(), 'taorl-curate-'));
    const session = await openSession(tinyConfig(outDir), 'tiny.yaml');
    try {
      const problems = (await problemSource(session)).train(1, 0, 6);
      const golds = new Map(problems.map((problem) => [problem.promptIds.join(','), problem.gold]));
      // The tiny model's own answers are wrong; about half its samples are replaced by the boxed gold, decided by
      // the sampled first token, so the pass rates spread over [0, 1] and follow the seed.
      const policy: RolloutPolicy = {
        vocabSize: session.rolloutPolicy.vocabSize,
        maxSequenceLength: session.rolloutPolicy.maxSequenceLength,
        async generate(prompts, sampling) {
          const sampled = await session.rolloutPolicy.generate(prompts, sampling);
          return sampled.map((sequence, i) => {
            const gold = golds.get(prompts[i]!.join(','));
            if (gold === undefined || sequence.tokens.length === 0 || sequence.tokens[0]! % 2 === 0)
              return sequence;
            const tokens = Int32Array.from([
              ...session.tokenizer.encodeUntrusted(`\\boxed{${gold}}`),
              session.tokenizer.eosTokenId,
            ]);
            const logProbs = new Float32Array(tokens.length).fill(-0.5);
            const entropies = new Float32Array(tokens.length).fill(0.5);
            return { tokens, logProbs, entropies, finishReason: 'stop_token' };
          });
        },
      };
      const samples = 4;
      const { report, path } = await curateProblems(session, { problems: 6, samples, policy });
      expect(report.kept.length + report.neverSolved + report.alwaysSolved).toBe(problems.length);
      expect(report.kept.length).toBeGreaterThan(0);
      const ids = new Set(problems.map((problem) => problem.id));
      for (const rate of report.kept) {
        expect(ids.has(rate.id)).toBe(true);
        expect(rate.passRate).toBeGreaterThan(0);
        expect(rate.passRate).toBeLessThan(1);
        expect(rate.samples).toBe(samples);
        expect(Number.isInteger(rate.passRate * samples)).toBe(true);
      }
      const lines = readFileSync(path, 'utf8')
        .split('\n')
        .filter((line) => line !== '');
      expect(lines.map((line) => JSON.parse(line))).toEqual(report.kept);
      // The same seed scores the same.
      expect((await curateProblems(session, { problems: 6, samples, policy })).report).toEqual(report);
    } finally {
      await session.close();
    }
  });
});
