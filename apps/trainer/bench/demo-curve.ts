/**
 * The demo task's learning curves: held-out Avg@K, strategy shares and accuracy per level of the tiny model after
 * every `evalEvery` SFT steps (so the SFT plateau shows), then RL from the last SFT weights against
 * demo.moreSftSteps more SFT steps from the same weights, with the same breakdown after each. Bounded by steps only.
 *
 *   pnpm bench apps/trainer/bench/demo-curve.ts [sftSteps=1200] [evalEvery=200] [field=value ...]
 *
 * The demo preset's settings apply (task.mix: strategy, rl.steps, demo.moreSftSteps) unless a field=value changes
 * them; task.testSize defaults to 200 here.
 */

import { ARITH_STRATEGIES } from '@taorl/data';
import * as tf from '@tensorflow/tfjs';
import { type EvalMetrics, loadConfig, MetricsWriter, readMetrics } from '../src/index.js';
import { problemSource } from '../src/session/problem-source.js';
import { openSession } from '../src/session/session.js';
import { presetPath } from '../src/util/shipped.js';
import { evaluate } from '../src/workflows/evaluate.js';
import { runRl } from '../src/workflows/rl-run.js';
import { arithSftTraces, runSft, sftExampleOf } from '../src/workflows/sft-run.js';

const sftSteps = Number(process.argv[2] ?? 1200);
const every = Number(process.argv[3] ?? 200);
const config = loadConfig(presetPath('demo'), [
  'task.testSize=200',
  ...process.argv.slice(4),
  `sft.steps=${sftSteps}`,
  `outDir=/tmp/taorl-curve-${process.pid}`,
]);
const session = await openSession(config, 'demo.yaml');
const writer = new MetricsWriter(`/tmp/taorl-curve-metrics-${process.pid}.jsonl`);
writer.truncateAfter(() => false);
const problems = await problemSource(session);
const test = problems.test();
const started = performance.now();
const pct = (x: number | undefined) => (x === undefined ? '-' : (100 * x).toFixed(1));

console.log(
  `| policy | loss | Avg@${config.eval.samples} | greedy | calls | ${ARITH_STRATEGIES.join(' | ')} | ` +
    'acc. level 1 / 2 / 3 / 4 | wall s |',
);
console.log(`|${' --- |'.repeat(7 + ARITH_STRATEGIES.length)}`);
const row = async (label: string, step: number, loss: number | null) => {
  const sampled: EvalMetrics = await evaluate(session, test, { label, step, quiet: true, greedy: false });
  const greedy = await evaluate(session, test, { label, step, quiet: true, greedy: true });
  const levels = ['1', '2', '3', '4'].map((level) => pct(sampled.accuracyByLevel?.[level])).join(' / ');
  console.log(
    `| ${label} | ${loss === null ? '-' : loss.toFixed(3)} | ${pct(sampled.accuracy)} | ${pct(greedy.accuracy)} | ` +
      `${sampled.toolCallsPerTrajectory.toFixed(2)} | ` +
      `${ARITH_STRATEGIES.map((s) => pct(sampled.strategies?.[s])).join(' | ')} | ${levels} | ` +
      `${((performance.now() - started) / 1000).toFixed(0)} |`,
  );
};

const examples = (await arithSftTraces(session, config.sft.examples, true)).map(sftExampleOf);
let trainer: Awaited<ReturnType<typeof runSft>> | undefined;
const lossOf = (fromStep: number) => {
  const losses = readMetrics(writer.path).flatMap((l) =>
    l.phase === 'sft' && l.step > fromStep ? [l.loss] : [],
  );
  return losses.reduce((s, l) => s + l, 0) / Math.max(1, losses.length);
};
for (let done = 0; done < sftSteps; done += every) {
  trainer = await runSft(session, examples, writer, {
    steps: every,
    minutes: 0,
    trainer,
    quiet: true,
    firstStep: done,
  });
  await row(`SFT ${done + every} steps`, done + every, lossOf(done));
}
const sftWeights = session.policy.trainableVariables().map((v) => v.clone());
const lines = await runRl(session, problems, writer, { quiet: true, firstStep: sftSteps });
for (const l of lines.filter((_, i) => i % 5 === 0 || i === lines.length - 1)) {
  console.log(
    `|   rl step ${l.step - sftSteps} | | rollouts ${pct(l.accuracy)} | | ${l.toolCallsPerTrajectory.toFixed(2)} | ` +
      `${ARITH_STRATEGIES.map((s) => pct(l.strategies?.[s])).join(' | ')} | all-failed-right ${pct(l.allFailedCorrect)}, ` +
      `C1 drops ${l.filterDrops['all-tool-calls-failed'] ?? 0}, bonus ${l.bonus.tokens} (${l.decisionPoints?.bonusTokens ?? 0} at decisions) | |`,
  );
}
await row(`SFT + RL ${lines.length} steps`, sftSteps + lines.length, null);
session.policy.trainableVariables().forEach((v, i) => {
  v.assign(sftWeights[i]!);
});
tf.dispose(sftWeights);
await runSft(session, examples, writer, {
  steps: config.demo.moreSftSteps,
  minutes: 0,
  trainer,
  quiet: true,
  firstStep: sftSteps,
});
await row(
  `SFT + ${config.demo.moreSftSteps} more SFT steps`,
  sftSteps + config.demo.moreSftSteps,
  lossOf(sftSteps),
);
await session.close();
