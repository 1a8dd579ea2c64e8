import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type * as tf from '@tensorflow/tfjs';
import { writeReport } from '../report/html-report.js';
import type { EvalMetrics } from '../report/metrics.js';
import { MetricsWriter, readMetrics } from '../report/metrics.js';
import { evaluate } from './evaluate.js';
import { problemSource } from './problems.js';
import { runRl } from './rl-run.js';
import type { Session } from './session.js';
import { arithSftTraces, runSft, sftExampleOf } from './sft-run.js';

export interface DemoResult {
  sft: EvalMetrics;
  rl: EvalMetrics;
  /** The SFT policy trained for as long as RL ran instead (the honest baseline). */
  moreSft: EvalMetrics;
  /** Samples per held-out problem (K). */
  samples: number;
  sftSeconds: number;
  rlSeconds: number;
  totalSeconds: number;
  reportPath: string;
}

const percent = (x: number) => `${(100 * x).toFixed(1)}%`;

/** The before/after table the demo prints: Avg@K and Pass@K over the held-out problems (K = eval.samples). */
export function demoTable(result: DemoResult): string {
  const rows: [string, EvalMetrics][] = [
    ['SFT', result.sft],
    [`SFT + RL (${result.rlSeconds.toFixed(0)} s)`, result.rl],
    [`SFT + more SFT (same ${result.rlSeconds.toFixed(0)} s)`, result.moreSft],
  ];
  const k = result.samples;
  const width = Math.max(...rows.map(([name]) => name.length));
  const header = `${'policy'.padEnd(width)}  ${`Avg@${k}`.padStart(8)}  ${`Pass@${k}`.padStart(8)}  tool calls  tool success  tokens`;
  const lines = rows.map(
    ([name, e]) =>
      `${name.padEnd(width)}  ${percent(e.accuracy).padStart(8)}  ${percent(e.passAtK).padStart(8)}  ` +
      `${e.toolCallsPerTrajectory.toFixed(2).padStart(10)}  ${percent(e.toolSuccessRate).padStart(12)}  ` +
      `${e.responseTokens.toFixed(0).padStart(6)}`,
  );
  const n = result.sft.problems;
  // Avg@K is a mean over problems of per-problem shares; its spread over problems bounds the standard error.
  const se = Math.sqrt((result.sft.accuracy * (1 - result.sft.accuracy)) / n);
  return [
    `Held-out arith-tool problems: ${n}, ${k} sample(s) each (standard error of an Avg@${k} at most about ${percent(se)})`,
    header,
    ...lines,
    '',
  ].join('\n');
}

/**
 * `taorl demo`: SFT on real tool-use traces, then TAO-RL, on the embedded arith-tool task with the tiny model;
 * held-out evaluation after each, and the honest comparison: the SFT policy given RL's minutes of more SFT.
 */
export async function runDemo(session: Session, log: (text: string) => void): Promise<DemoResult> {
  const started = performance.now();
  const { config, policy } = session;
  mkdirSync(config.outDir, { recursive: true });
  const writer = new MetricsWriter(join(config.outDir, 'metrics.jsonl'));
  writer.truncateAfter(() => false);
  const problems = await problemSource(session);
  const test = problems.test();

  const traces = await arithSftTraces(session, config.sft.examples);
  const examples = traces.map(sftExampleOf);
  const sftStarted = performance.now();
  const trainer = await runSft(session, examples, writer, {
    steps: config.sft.steps,
    minutes: config.sft.minutes,
  });
  const sftSeconds = (performance.now() - sftStarted) / 1000;
  const sftSteps = trainer.steps;
  const sft = await evaluate(session, test, { label: 'SFT', step: sftSteps });
  writer.write(sft);
  log(`SFT: ${sftSteps} steps in ${sftSeconds.toFixed(0)} s, held-out accuracy ${percent(sft.accuracy)}\n`);
  // Kept so the RL arms can be rerun or ablated from the same start (`taorl ablate --from <outDir>/sft-policy`).
  await policy.save(join(config.outDir, 'sft-policy'));

  const sftWeights: tf.Tensor[] = policy.trainableVariables().map((variable) => variable.clone());
  const rlStarted = performance.now();
  const rlLines = await runRl(session, problems, writer, { firstStep: sftSteps });
  const rlSeconds = (performance.now() - rlStarted) / 1000;
  const rl = await evaluate(session, test, { label: 'SFT + RL', step: sftSteps + rlLines.length });
  writer.write(rl);
  log(
    `RL: ${rlLines.length} steps in ${rlSeconds.toFixed(0)} s, held-out accuracy ${percent(rl.accuracy)}\n`,
  );
  await policy.save(join(config.outDir, 'rl-policy'));

  // The honest baseline: back to the SFT weights, and SFT for as long as RL ran (same optimizer, schedule floor).
  policy.trainableVariables().forEach((variable, i) => {
    variable.assign(sftWeights[i]!);
  });
  for (const weights of sftWeights) weights.dispose();
  await runSft(session, examples, writer, {
    steps: Math.max(1, Math.round((rlSeconds * sftSteps) / Math.max(sftSeconds, 1e-3))),
    minutes: rlSeconds / 60,
    firstStep: sftSteps,
    trainer,
  });
  const moreSft = await evaluate(session, test, { label: 'SFT + more SFT', step: trainer.steps });
  writer.write(moreSft);
  trainer.dispose();

  const reportPath = join(config.outDir, 'report.html');
  await writeReport(reportPath, 'taorl demo: SFT then TAO-RL on arith-tool', readMetrics(writer.path));
  return {
    sft,
    rl,
    moreSft,
    samples: config.eval.samples,
    sftSeconds,
    rlSeconds,
    totalSeconds: (performance.now() - started) / 1000,
    reportPath,
  };
}
