import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Trajectory } from '@taorl/data';
import { rlStep } from '@taorl/rl';
import type { ToolEnvironment } from '@taorl/rollout';
import { describe, expect, it } from 'vitest';
import { parseConfig, type RlStepMetrics } from '../src/index.js';
import { problemSource } from '../src/session/problem-source.js';
import { openSession, type Session } from '../src/session/session.js';
import { PolicyWorkers } from '../src/workers/policy-workers.js';
import { evaluate } from '../src/workflows/evaluate.js';
import { rlContext } from '../src/workflows/rl-run.js';

/** A tiny RL run: real tiny model on tfjs, real sandbox, graders, shaper and updater; 3 lanes over 2 workers. */
function tinyConfig(workers: number) {
  const outDir = mkdtempSync(join(tmpdir(), 'taorl-rollout-workers-'));
  return parseConfig(
    [
      'seed: 5',
      'backend: wasm',
      `outDir: ${JSON.stringify(outDir)}`,
      'tool: {sandbox: {name: local, workers: 2, preload: []}}',
      `workers: ${workers}`,
      'rollout: {maxResponseTokens: 48, maxTurns: 3, temperature: 1.0, lanes: 3}',
      'rl: {groups: 2, groupSize: 4, maxGenBatches: 1, learningRate: 1.0e-3, filters: [], microBatchRows: 4}',
      'task: {testSize: 4}',
      'eval: {samples: 2}',
    ].join('\n'),
    'tiny.yaml',
  );
}

/**
 * The session's real sandbox behind stop strings the untrained model emits often (any digit, about one token in
 * 25), so trajectories take several turns and the lanes' tool calls come back in an order that depends on timing:
 * the trajectories may depend only on the seed.
 */
const digits = Array.from({ length: 10 }, (_, digit) => String(digit));
function frequentTools(session: Session): ToolEnvironment {
  return {
    stopStrings: digits,
    parse: (segment) =>
      digits.some((digit) => segment.endsWith(digit)) ? `print(${segment.length} * 3)` : null,
    execute: (code) => session.tools.execute(code),
  };
}

const bytes = (values: Float32Array) => Buffer.from(values.buffer, values.byteOffset, values.byteLength);

/** Every column of the trajectories, float columns as their bytes. */
function columns(trajectories: readonly Trajectory[]) {
  return trajectories.map((t) => ({
    groupId: t.groupId,
    responseIds: Array.from(t.responseIds),
    lossMask: Array.from(t.lossMask),
    oldLogProbs: bytes(t.oldLogProbs).toString('hex'),
    entropies: bytes(t.entropies).toString('hex'),
    toolCalls: t.toolCalls,
    reward: t.reward,
    correct: t.correct,
    truncated: t.truncated,
    text: t.text,
  }));
}

function untimed(line: RlStepMetrics) {
  const { time, tokensPerSecond, ...rest } = line;
  return rest;
}

interface Run {
  batches: ReturnType<typeof columns>[];
  lines: ReturnType<typeof untimed>[];
  weights: Map<string, Float32Array>;
  /** Whether the updates changed the weights. */
  trained: boolean;
  evaluation: object;
}

/** Two RL steps with every trained batch recorded, then a held-out evaluation. */
async function run(workers: number): Promise<Run> {
  const session = await openSession(tinyConfig(workers), 'tiny.yaml');
  try {
    expect(session.rolloutPolicy instanceof PolicyWorkers).toBe(workers > 1);
    const start = session.policy.toCheckpoint().tensors;
    const problems = await problemSource(session);
    const { context, updater } = rlContext(session, problems);
    const batches: ReturnType<typeof columns>[] = [];
    const recorded = {
      ...context,
      tools: frequentTools(session),
      update: (batch: readonly Trajectory[], advantages: readonly Float32Array[]) => {
        batches.push(columns(batch));
        return context.update(batch, advantages);
      },
    };
    const lines = [];
    try {
      await context.sync.start(0);
      for (const step of [1, 2]) lines.push(untimed(await rlStep(recorded, step)));
    } finally {
      updater.dispose();
      await context.sync.close();
    }
    const { seconds, ...evaluation } = await evaluate(session, problems.test(), {
      label: 'held-out',
      step: 2,
      // 3 chunks: with workers, two at once.
      batchSize: 3,
      quiet: true,
    });
    const weights = session.policy.toCheckpoint().tensors;
    const trained = [...weights].some(([name, values]) => !bytes(values).equals(bytes(start.get(name)!)));
    return { batches, lines, weights, trained, evaluation };
  } finally {
    await session.close();
  }
}

describe('the worker pool generating rollouts (workers)', () => {
  it('2 workers give the trajectories, metrics, weights and evaluation of 1 (the main thread)', async () => {
    const single = await run(1);
    const parallel = await run(2);
    // The run is not trivial: several turns with real tool calls, and the updates moved the weights.
    const calls = single.batches.flat().reduce((sum, t) => sum + t.toolCalls.length, 0);
    expect(calls).toBeGreaterThan(10);
    expect(single.trained).toBe(true);

    expect(parallel.batches).toEqual(single.batches);
    expect(parallel.lines).toEqual(single.lines);
    for (const [name, values] of single.weights) {
      expect(bytes(parallel.weights.get(name)!).equals(bytes(values)), name).toBe(true);
    }
    expect(parallel.evaluation).toEqual(single.evaluation);
  }, 180_000);
});

describe('rollout worker failures', () => {
  it('a worker that throws or exits fails the RL step by name and cause, trains on nothing, and is replaced', async () => {
    const session = await openSession(tinyConfig(2), 'tiny.yaml');
    const workers = session.rolloutPolicy;
    if (!(workers instanceof PolicyWorkers)) throw new Error('expected policy worker threads');
    const problems = await problemSource(session);
    const { context, updater } = rlContext(session, problems);
    let updates = 0;
    const counted = {
      ...context,
      tools: frequentTools(session),
      update: (batch: readonly Trajectory[], advantages: readonly Float32Array[]) => {
        updates++;
        return context.update(batch, advantages);
      },
    };
    const start = session.policy.toCheckpoint().tensors;
    const unchanged = () => {
      const now = session.policy.toCheckpoint().tensors;
      return [...start].every(([name, values]) => bytes(values).equals(bytes(now.get(name)!)));
    };
    try {
      await context.sync.start(0);
      // 3 lanes over 2 threads: both threads get a call in the first turn.
      workers.injectFault(1, 'throw');
      await expect(rlStep(counted, 1)).rejects.toThrow(
        'policy worker thread 2 of 2 failed: injected fault (test hook)',
      );
      workers.injectFault(0, 'exit');
      await expect(rlStep(counted, 1)).rejects.toThrow(
        'policy worker thread 1 of 2 failed: exited with code 70',
      );
      expect(updates).toBe(0);
      expect(unchanged()).toBe(true);

      const metrics = await rlStep(counted, 1);
      expect(updates).toBe(1);
      expect(metrics.trajectoriesKept).toBe(8);
    } finally {
      updater.dispose();
      await context.sync.close();
      await session.close();
    }
  }, 180_000);

  it("a replica's own error names the worker; calls outside a rollout and after dispose are refused", async () => {
    const session = await openSession(tinyConfig(2), 'tiny.yaml');
    const workers = session.rolloutPolicy;
    if (!(workers instanceof PolicyWorkers)) throw new Error('expected policy worker threads');
    const threads = () => readdirSync('/proc/self/task').length;
    const before = threads();
    try {
      await expect(workers.generate([Int32Array.of(1, 2)], { maxNewTokens: 2 })).rejects.toThrow(
        'policy workers: call beforeRollout before generate',
      );
      workers.beforeRollout();
      const outside = session.tokenizer.vocabSize + 5;
      await expect(workers.generate([Int32Array.of(1, outside)], { maxNewTokens: 2 })).rejects.toThrow(
        `policy worker thread 1 of 2 failed: prompt 0: token ${outside} at 1 is outside the vocabulary`,
      );
      // Refused until the next rollout starts fresh workers, which then answer.
      await expect(workers.generate([Int32Array.of(1, 2)], { maxNewTokens: 2 })).rejects.toThrow(
        'policy worker thread 1 of 2 failed',
      );
      workers.beforeRollout();
      const [sequence] = await workers.generate([Int32Array.of(1, 2)], { maxNewTokens: 3, seed: 1 });
      const [local] = await session.policy.generate([Int32Array.of(1, 2)], { maxNewTokens: 3, seed: 1 });
      expect(sequence).toEqual(local);
      if (process.platform === 'linux') expect(threads()).toBeGreaterThanOrEqual(before + 2);
    } finally {
      await session.close();
    }
    if (process.platform === 'linux') expect(threads()).toBeLessThanOrEqual(before);
    await expect(workers.generate([Int32Array.of(1, 2)], { maxNewTokens: 2 })).rejects.toThrow(
      'policy workers were disposed',
    );
  });
});
