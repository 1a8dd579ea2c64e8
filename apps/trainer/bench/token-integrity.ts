/**
 * What rollout.checkTokenIntegrity costs an RL step: @taorl/rollout's checkTokenIntegrity on every trajectory of a
 * batch, timed alone (the batch's trajectories and records from one rollout, checked `repeats` times), against
 * the RL step it runs in, with the check on and off, interleaved (the order alternating each round) so both arms
 * see the same machine load. The config is trainer-steps.ts's (8 x 8 rollouts of up to 160 tokens, 2 lanes, real
 * tool calls in the sandbox, a fresh model on the wasm backend).
 *
 *   pnpm bench apps/trainer/bench/token-integrity.ts [rounds=2] [repeats=20]
 */

import { rlStep } from '@taorl/rl';
import { checkTokenIntegrity, rollout, samplesOf } from '@taorl/rollout';
import { parseConfig } from '../src/index.js';
import { problemSource } from '../src/session/problem-source.js';
import { rolloutOptionsOf } from '../src/session/rollout-options.js';
import { openSession } from '../src/session/session.js';
import { rlContext } from '../src/workflows/rl-run.js';

const rounds = Number(process.argv[2] ?? 2);
const repeats = Number(process.argv[3] ?? 20);
const config = parseConfig(
  [
    'seed: 1',
    'backend: wasm',
    'outDir: /tmp/taorl-bench-integrity',
    'tool: {sandbox: {name: local, workers: 2, preload: []}, observationChars: 256}',
    'workers: 1',
    'rollout: {maxTurns: 3, maxResponseTokens: 160, temperature: 0.7, lanes: 2}',
    'rl: {groups: 8, groupSize: 8, maxGenBatches: 1, filters: [], microBatchRows: 32}',
  ].join('\n'),
  'bench',
);
const session = await openSession(config, 'bench');
const source = await problemSource(session);
const { context } = rlContext(session, source);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

// The check alone, on one batch's trajectories.
const problems = source.train(0, 0, config.rl.groups);
const result = await rollout(
  session.rolloutPolicy,
  session.tokenizer,
  session.tools,
  samplesOf(problems, config.rl.groupSize),
  { ...rolloutOptionsOf(config), seed: 1, checkTokenIntegrity: false },
);
const checkOptions = {
  vocabSize: session.rolloutPolicy.vocabSize,
  stopTokenIds: [session.tokenizer.eosTokenId],
  decode: (ids: Int32Array) => session.tokenizer.decode(ids),
};
const checkMs: number[] = [];
for (let r = 0; r < repeats; r++) {
  const start = performance.now();
  result.trajectories.forEach((trajectory, i) => {
    checkTokenIntegrity(trajectory, result.records[i]!, { ...checkOptions, label: `trajectory ${i}` });
  });
  checkMs.push(performance.now() - start);
}
const tokens = result.trajectories.reduce((sum, t) => sum + t.responseIds.length, 0);
const calls = result.trajectories.reduce((sum, t) => sum + t.toolCalls.length, 0);

// RL steps with the check on and off, interleaved.
const stepMs: Record<'on' | 'off', number[]> = { on: [], off: [] };
let step = 0;
for (let round = 0; round < rounds; round++) {
  const arms = round % 2 === 0 ? (['on', 'off'] as const) : (['off', 'on'] as const);
  for (const arm of arms) {
    const ctx = { ...context, rollout: { ...context.rollout, checkTokenIntegrity: arm === 'on' } };
    const metrics = await rlStep(ctx, step++);
    stepMs[arm].push(metrics.time.totalMs);
  }
}
await session.close();

const check = median(checkMs);
const on = median(stepMs.on);
const off = median(stepMs.off);
console.log(
  JSON.stringify(
    {
      trajectories: result.trajectories.length,
      responseTokens: tokens,
      toolCalls: calls,
      checkMsMedian: Number(check.toFixed(3)),
      checkMsAll: checkMs.map((ms) => Number(ms.toFixed(3))),
      stepMsOn: stepMs.on.map(Math.round),
      stepMsOff: stepMs.off.map(Math.round),
      checkShareOfStep: Number((check / off).toFixed(5)),
      stepRatioOnOverOff: Number((on / off).toFixed(4)),
    },
    null,
    2,
  ),
);
