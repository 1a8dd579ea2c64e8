/**
 * What rl.oldLogProbs trainer costs against rollout with local rollouts, where both are the same model: the trainer
 * then scores the batch once more (a forward pass over every row) before the update. RL steps of the two settings
 * alternate on one session, so both see the same machine load and policy; reported are the update's time
 * (trainingMs) and the whole step's, median over the steps, and their ratios, with the correction's mismatch
 * metrics (local: the same model scores, so the weights are ~1).
 *
 *   pnpm bench apps/trainer/bench/old-log-probs.ts
 */

import { rlStep } from '@taorl/rl';
import { parseConfig, type RlStepMetrics } from '../src/index.js';
import { problemSource } from '../src/session/problem-source.js';
import { openSession } from '../src/session/session.js';
import { rlContext } from '../src/workflows/rl-run.js';

const steps = Number(process.env.STEPS ?? 4);
const config = parseConfig(
  [
    'seed: 1',
    'backend: wasm',
    'outDir: /tmp/taorl-bench-old-log-probs',
    'model: {source: base}',
    'tool: {sandbox: {name: local, workers: 1, preload: []}, observationChars: 256}',
    'workers: 1',
    'rollout: {maxTurns: 3, maxResponseTokens: 160, temperature: 0.7, lanes: 2}',
    'rl: {groups: 4, groupSize: 8, maxGenBatches: 1, filters: [], microBatchRows: 32}',
  ].join('\n'),
  'bench',
);
const session = await openSession(config, 'bench');
const problems = await problemSource(session);
const arms = (['rollout', 'trainer'] as const).map((oldLogProbs) =>
  rlContext(
    {
      ...session,
      components: {
        ...session.components,
        learner: {
          oldLogProbs,
          rolloutCorrection: oldLogProbs === 'trainer' ? { weights: 'token' } : null,
        },
      },
    },
    problems,
  ),
);
const lines: Record<'rollout' | 'trainer', RlStepMetrics[]> = { rollout: [], trainer: [] };
for (let step = 1; step <= steps; step++) {
  for (const [i, name] of (['rollout', 'trainer'] as const).entries()) {
    lines[name].push(await rlStep(arms[i]!.context, step));
  }
}
for (const { updater } of arms) updater.dispose();
await session.close();

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const of = (name: 'rollout' | 'trainer', f: (l: RlStepMetrics) => number) =>
  median(lines[name].slice(1).map(f));
const training = (name: 'rollout' | 'trainer') => of(name, (l) => l.time.trainingMs);
const total = (name: 'rollout' | 'trainer') => of(name, (l) => l.time.totalMs);
console.log(`${steps} steps per setting, alternating; medians over steps 2..${steps}`);
console.log(
  `update (trainingMs): rollout ${training('rollout').toFixed(0)} ms, trainer ${training('trainer').toFixed(0)} ms, ` +
    `ratio ${(training('trainer') / training('rollout')).toFixed(2)}`,
);
console.log(
  `whole step (totalMs): rollout ${total('rollout').toFixed(0)} ms, trainer ${total('trainer').toFixed(0)} ms, ` +
    `ratio ${(total('trainer') / total('rollout')).toFixed(2)}`,
);
const c = lines.trainer.map((l) => l.correction!);
console.log(
  `mismatch (trainer pi_old vs the rollout's, same model): k3Kl max ${Math.max(...c.map((x) => x.k3Kl)).toExponential(2)}, ` +
    `ratioMax max ${Math.max(...c.map((x) => x.ratioMax)).toFixed(6)}, weightMean ${c.map((x) => x.weightMean.toFixed(6)).join(' ')}`,
);
