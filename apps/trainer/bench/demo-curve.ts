/**
 * The demo's learning curve: held-out accuracy of the tiny model after k SFT steps (k = 100, 200, ...), then RL
 * from the last SFT checkpoint against the same minutes of more SFT. Sizes the demo config.
 *
 *   pnpm bench apps/trainer/bench/demo-curve.ts [sftSteps] [rlSteps] [evalEvery] [field=value ...]
 */
import * as tf from '@tensorflow/tfjs';
import { presetPath } from '../src/cli/presets.js';
import { loadConfig, MetricsWriter } from '../src/index.js';
import { evaluate } from '../src/run/evaluate.js';
import { problemSource } from '../src/run/problems.js';
import { runRl } from '../src/run/rl-run.js';
import { openSession } from '../src/run/session.js';
import { arithSftTraces, runSft, sftExampleOf } from '../src/run/sft-run.js';

const sftSteps = Number(process.argv[2] ?? 400);
const rlSteps = Number(process.argv[3] ?? 20);
const every = Number(process.argv[4] ?? 100);
const config = loadConfig(presetPath('demo'), [
  ...process.argv.slice(5).map((assignment) => assignment),
  `sft.steps=${sftSteps}`,
  'sft.minutes=0',
  `rl.steps=${rlSteps}`,
  'rl.minutes=0',
  'task.testSize=200',
  `outDir=/tmp/taorl-curve-${process.pid}`,
]);
const session = await openSession(config, 'demo.yaml');
const writer = new MetricsWriter(`/tmp/taorl-curve-metrics-${process.pid}.jsonl`);
writer.truncateAfter(() => false);
const problems = await problemSource(session);
const test = problems.test();
const started = performance.now();
const seconds = () => ((performance.now() - started) / 1000).toFixed(0);
const examples = (await arithSftTraces(session, config.sft.examples, true)).map(sftExampleOf);
let trainer: Awaited<ReturnType<typeof runSft>> | undefined;
for (let done = 0; done < sftSteps; done += every) {
  const t = performance.now();
  trainer = await runSft(session, examples, writer, {
    steps: every,
    minutes: 0,
    trainer,
    quiet: true,
    firstStep: done,
  });
  const stepMs = (performance.now() - t) / every;
  const e = await evaluate(session, test, { label: 'sft', step: done + every, quiet: true });
  console.log(
    `SFT ${done + every} steps (${stepMs.toFixed(0)} ms/step): held-out ${(100 * e.accuracy).toFixed(1)}% ` +
      `tool calls ${e.toolCallsPerTrajectory.toFixed(2)} success ${(100 * e.toolSuccessRate).toFixed(0)}% [${seconds()} s]`,
  );
}
await session.policy.save(`/tmp/taorl-curve-${process.pid}/sft-policy`);
const sftWeights = session.policy.trainableVariables().map((v) => v.clone());
const rlStart = performance.now();
const lines = await runRl(session, problems, writer, { quiet: true, firstStep: sftSteps });
const rlSeconds = (performance.now() - rlStart) / 1000;
for (const l of lines) {
  console.log(
    `  rl ${l.step}: reward ${l.reward.toFixed(3)} acc ${(100 * l.accuracy).toFixed(1)}% kept ${l.groupsKept} groups ` +
      `drops ${JSON.stringify(l.filterDrops)} bonus ${l.bonus.tokens} gen ${l.time.generationMs.toFixed(0)} sandbox ` +
      `${l.time.sandboxMs.toFixed(0)} train ${l.time.trainingMs.toFixed(0)} ms`,
  );
}
const rl = await evaluate(session, test, { label: 'rl', step: 0, quiet: true });
console.log(
  `SFT + RL (${rlSeconds.toFixed(0)} s): held-out ${(100 * rl.accuracy).toFixed(1)}% [${seconds()} s]`,
);
session.policy.trainableVariables().forEach((v, i) => {
  v.assign(sftWeights[i]!);
});
tf.dispose(sftWeights);
const t = performance.now();
await runSft(session, examples, writer, { steps: 100000, minutes: rlSeconds / 60, trainer, quiet: true });
const more = await evaluate(session, test, { label: 'more', step: 0, quiet: true });
console.log(
  `SFT + more SFT (${((performance.now() - t) / 1000).toFixed(0)} s): held-out ${(100 * more.accuracy).toFixed(1)}% [${seconds()} s]`,
);
await session.close();
