import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MetricsWriter, readMetrics } from '../report/metrics.js';
import { problemSource } from '../session/problem-source.js';
import type { Session } from '../session/session.js';
import { evaluate } from '../workflows/evaluate.js';
import { arithSftTraces, runSft, sftExampleOf } from '../workflows/sft-run.js';

/** One point of the pretraining curve: mean SFT loss since the previous point, held-out greedy accuracy. */
export interface PretrainPoint {
  step: number;
  loss: number;
  greedy: number;
}

/**
 * Pretrains a base model: SFT of the session's policy on the configured arith-tool traces (the `pretrain` mix for
 * the demo's base) for config.sft.steps, with a held-out greedy evaluation every `evalEvery` steps, then saves the
 * policy to `outDir` (config.json, model.safetensors) with provenance.json (the config and the curve). Bounded by
 * steps only, so a config gives the same weights on any machine.
 */
export async function pretrainBase(
  session: Session,
  outDir: string,
  options: { evalEvery: number; command: string; log?: (line: string) => void },
): Promise<PretrainPoint[]> {
  const { config } = session;
  mkdirSync(join(outDir, 'run'), { recursive: true });
  const writer = new MetricsWriter(join(outDir, 'run', 'metrics.jsonl'));
  writer.truncateAfter(() => false);
  const test = (await problemSource(session)).test();
  const examples = (await arithSftTraces(session, config.sft.examples, options.log === undefined)).map(
    sftExampleOf,
  );
  const started = performance.now();
  const curve: PretrainPoint[] = [];
  let trainer: Awaited<ReturnType<typeof runSft>> | undefined;
  for (let done = 0; done < config.sft.steps; ) {
    const steps = Math.min(options.evalEvery, config.sft.steps - done);
    trainer = await runSft(session, examples, writer, {
      steps,
      minutes: 0,
      trainer,
      quiet: true,
      firstStep: done,
    });
    done += steps;
    const losses = readMetrics(writer.path).flatMap((line) =>
      line.phase === 'sft' && line.step > done - steps ? [line.loss] : [],
    );
    const loss = losses.reduce((sum, l) => sum + l, 0) / losses.length;
    const { accuracy } = await evaluate(session, test, {
      label: `step ${done}`,
      step: done,
      quiet: true,
      greedy: true,
    });
    curve.push({ step: done, loss, greedy: accuracy });
    options.log?.(
      `step ${done}/${config.sft.steps}: loss ${loss.toFixed(3)}, held-out greedy ${(100 * accuracy).toFixed(1)}% ` +
        `(${((performance.now() - started) / 1000).toFixed(0)} s)`,
    );
  }
  await trainer?.dispose();
  await session.policy.save(outDir);
  const { outDir: _runFolder, ...recorded } = config;
  writeFileSync(
    join(outDir, 'provenance.json'),
    `${JSON.stringify({ command: options.command, config: recorded, curve }, null, 2)}\n`,
  );
  return curve;
}
