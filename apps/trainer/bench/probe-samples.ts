/**
 * Prints a few greedy held-out rollouts of a saved policy, for looking at what the model actually writes.
 *
 *   pnpm bench apps/trainer/bench/probe-samples.ts <policy folder> [count]
 */

import { presetPath } from '../src/cli/presets.js';
import { loadConfig } from '../src/index.js';
import { gradeTrajectories } from '../src/rl/rewards.js';
import { rollout } from '../src/rollout/rollout-engine.js';
import { problemSource } from '../src/run/problems.js';
import { openSession } from '../src/run/session.js';

const path = process.argv[2]!;
const count = Number(process.argv[3] ?? 8);
const config = loadConfig(presetPath('demo'), [`model.path=${path}`, 'task.testSize=64']);
const session = await openSession(config, 'demo.yaml');
const problems = (await problemSource(session)).test().slice(0, count);
const { trajectories } = await rollout(
  session.policy,
  session.tokenizer,
  session.tools,
  problems.map((p) => ({ groupId: p.id, promptIds: p.promptIds })),
  { maxTurns: 3, maxResponseTokens: 256, sampling: { temperature: 0 }, seed: 1, lanes: 1 },
);
const golds = new Map(problems.map((p) => [p.id, p.gold]));
const graded = gradeTrajectories(
  trajectories,
  (id) => golds.get(id)!,
  (ids) => session.tokenizer.decode(ids),
);
for (const [i, t] of graded.entries()) {
  const question = session.tokenizer.decode(problems[i]!.promptIds).split('\n')[1];
  console.log(`${question} gold ${golds.get(t.groupId)} correct ${t.correct}\n${JSON.stringify(t.text)}\n`);
}
await session.close();
