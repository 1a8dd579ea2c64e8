/**
 * Prints a few greedy held-out rollouts of a saved policy, for looking at what the model actually writes.
 *
 *   pnpm bench apps/trainer/bench/probe-samples.ts <policy folder> [count]
 */

import { rolloutAndGrade, samplesOf } from '@taorl/rollout';
import { loadConfig } from '../src/index.js';
import { problemSource } from '../src/session/problem-source.js';
import { openSession } from '../src/session/session.js';
import { presetPath } from '../src/util/shipped.js';

const path = process.argv[2]!;
const count = Number(process.argv[3] ?? 8);
const config = loadConfig(presetPath('demo'), [
  'model.source=embedded',
  `model.path=${path}`,
  'task.testSize=64',
]);
const session = await openSession(config, 'demo.yaml');
const problems = (await problemSource(session)).test().slice(0, count);
const { trajectories: graded } = await rolloutAndGrade(session.policy, session, samplesOf(problems, 1), {
  maxTurns: 3,
  maxResponseTokens: 256,
  sampling: { temperature: 0 },
  seed: 1,
  lanes: 1,
});
for (const [i, t] of graded.entries()) {
  const question = session.tokenizer.decode(problems[i]!.promptIds).split('\n')[1];
  console.log(`${question} gold ${problems[i]!.gold} correct ${t.correct}\n${JSON.stringify(t.text)}\n`);
}
await session.close();
