/**
 * Pretrains the demo's base model: SFT of a fresh tiny model on the arith-tool `pretrain` mix (configs/pretrain.yaml),
 * with a held-out greedy evaluation every `evalEvery` steps, then saves the policy and its provenance.
 *
 *   pnpm --filter ./apps/trainer pretrain-base [outDir=base] [evalEvery=250] [field=value ...]
 *
 * Bounded by steps only, so the same config gives the same weights on any machine.
 */

import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadConfig, MetricsWriter, readMetrics } from '../src/index.js';
import { evaluate } from '../src/run/evaluate.js';
import { problemSource } from '../src/run/problems.js';
import { openSession } from '../src/run/session.js';
import { arithSftTraces, runSft, sftExampleOf } from '../src/run/sft-run.js';
import { presetPath } from '../src/util/shipped.js';

const outDir = resolve(process.argv[2] ?? 'base');
const every = Number(process.argv[3] ?? 250);
const overrides = process.argv.slice(4);
const config = loadConfig(presetPath('pretrain'), [...overrides, `outDir=${join(outDir, 'run')}`]);
const session = await openSession(config, 'pretrain.yaml');
mkdirSync(join(outDir, 'run'), { recursive: true });
const writer = new MetricsWriter(join(outDir, 'run', 'metrics.jsonl'));
writer.truncateAfter(() => false);
const test = (await problemSource(session)).test();
const examples = (await arithSftTraces(session, config.sft.examples)).map(sftExampleOf);
const started = performance.now();
const curve: Array<{ step: number; loss: number; greedy: number }> = [];
let trainer: Awaited<ReturnType<typeof runSft>> | undefined;
for (let done = 0; done < config.sft.steps; ) {
  const steps = Math.min(every, config.sft.steps - done);
  trainer = await runSft(session, examples, writer, {
    steps,
    minutes: 0,
    trainer,
    quiet: true,
    firstStep: done,
  });
  done += steps;
  const losses = readMetrics(writer.path).flatMap((l) =>
    l.phase === 'sft' && l.step > done - steps ? [l.loss] : [],
  );
  const loss = losses.reduce((sum, l) => sum + l, 0) / losses.length;
  const { accuracy } = await evaluate(session, test, {
    label: `step ${done}`,
    step: done,
    quiet: true,
    greedy: true,
  });
  curve.push({ step: done, loss, greedy: accuracy });
  console.log(
    `step ${done}/${config.sft.steps}: loss ${loss.toFixed(3)}, held-out greedy ${(100 * accuracy).toFixed(1)}% ` +
      `(${((performance.now() - started) / 1000).toFixed(0)} s)`,
  );
}
await trainer?.dispose();
await session.policy.save(outDir);
writeFileSync(
  join(outDir, 'provenance.json'),
  `${JSON.stringify({ command: `pnpm --filter ./apps/trainer pretrain-base ${process.argv.slice(2).join(' ')}`.trim(), preset: 'configs/pretrain.yaml', overrides, curve }, null, 2)}\n`,
);
console.log(`saved ${outDir}`);
await session.close();
