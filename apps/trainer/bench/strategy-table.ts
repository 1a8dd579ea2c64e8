/**
 * What a saved policy does on the embedded task's held-out problems, per level and strategy (arithStrategyOf):
 * how many samples followed each strategy and how many of them were right, with one example of each level's
 * give-ups. A give-up that is right is what TAO-RL's C1 removes (only failed calls, reward 1).
 *
 *   pnpm bench apps/trainer/bench/strategy-table.ts <policy folder> [problems=200] [samples=4]
 *
 * Sampling as in the demo's RL rollouts (rollout.temperature of configs/demo.yaml), 64 samples per rollout batch.
 */
import { arithStrategyOf } from '@taorl/data';
import { rolloutAndGrade, samplesOf } from '@taorl/rollout';
import { loadConfig } from '../src/index.js';
import { problemSource } from '../src/session/problem-source.js';
import { rolloutOptionsOf } from '../src/session/rollout-options.js';
import { openSession } from '../src/session/session.js';
import { presetPath } from '../src/util/shipped.js';

const path = process.argv[2];
if (path === undefined) throw new Error('usage: strategy-table.ts <policy folder> [problems] [samples]');
const count = Number(process.argv[3] ?? 200);
const k = Number(process.argv[4] ?? 4);
const config = loadConfig(presetPath('demo'), [
  'model.source=embedded',
  `model.path=${path}`,
  `task.testSize=${count}`,
]);
const session = await openSession(config, 'demo.yaml');
const problems = (await problemSource(session)).test().slice(0, count);
const byId = new Map(problems.map((problem) => [problem.id, problem]));
const samples = samplesOf(problems, k);
const rows = new Map<string, { samples: number; right: number }>();
const shown = new Set<string>();
for (let start = 0; start < samples.length; start += 64) {
  const { trajectories } = await rolloutAndGrade(
    session.rolloutPolicy,
    session,
    samples.slice(start, start + 64),
    {
      ...rolloutOptionsOf(config, false),
      seed: start,
    },
  );
  for (const t of trajectories) {
    const problem = byId.get(t.groupId)!;
    const key = `level ${problem.level} ${arithStrategyOf(t.toolCalls, problem.requiredCalls!)}`;
    const row = rows.get(key) ?? { samples: 0, right: 0 };
    row.samples++;
    if (t.correct) row.right++;
    rows.set(key, row);
    if (key.endsWith('gave-up') && !shown.has(key)) {
      shown.add(key);
      console.log(`${key}, gold ${problem.gold}, correct ${t.correct}: ${JSON.stringify(t.text)}`);
    }
  }
}
console.log('| level, strategy | samples | right |\n| --- | --- | --- |');
for (const [key, row] of [...rows.entries()].sort())
  console.log(`| ${key} | ${row.samples} | ${row.right} |`);
await session.close();
