import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { RlStepMetrics } from '@taorl/rl';
import type * as tf from '@tensorflow/tfjs';
import { writeReport } from '../../report/html-report.js';
import type { EvalMetrics } from '../../report/metrics.js';
import { MetricsWriter, readMetrics } from '../../report/metrics.js';
import { formatDuration } from '../../report/progress.js';
import type { TrendName } from '../../report/rl-trends.js';
import { runSummary, sourceCommit } from '../../report/run-summary.js';
import { problemSource } from '../../session/problem-source.js';
import type { Session } from '../../session/session.js';
import { evaluate, greedyLabel } from '../../workflows/evaluate.js';
import { runRl } from '../../workflows/rl-run.js';
import { arithSftTraces, runSft, sftExampleOf } from '../../workflows/sft-run.js';
import { type DemoMechanisms, demoMechanisms } from './demo-mechanisms.js';

/** One policy's held-out results: sampled at the rollout temperature (Avg@K, Pass@K), and greedy when asked. */
export interface DemoRow {
  sampled: EvalMetrics;
  greedy: EvalMetrics | null;
}

export interface DemoResult {
  sft: DemoRow;
  rl: DemoRow;
  /** The SFT policy trained demo.moreSftSteps more SFT steps instead of RL (the equal-compute baseline). */
  moreSft: DemoRow;
  /** Samples per held-out problem (K). */
  samples: number;
  sftSteps: number;
  rlSteps: number;
  moreSftSteps: number;
  sftSeconds: number;
  rlSeconds: number;
  moreSftSeconds: number;
  totalSeconds: number;
  /** What TAO-RL's filter and bonus acted on during RL. */
  mechanisms: DemoMechanisms;
  reportPath: string;
}

const percent = (x: number) => `${(100 * x).toFixed(1)}%`;
/** '-' for a statistic with nothing to measure (NaN). */
const orDash = (x: number, format: (x: number) => string) => (Number.isNaN(x) ? '-' : format(x));

const strategyColumns = [
  ['direct', 'direct'],
  ['tool', 'tool'],
  ['recovered', 'recov'],
  ['gave-up', 'gave-up'],
  ['stopped-early', 'stop-1'],
] as const;

/** The before/after table the demo prints: Avg@K, Pass@K and greedy accuracy, tool use and strategy shares. */
export function demoTable(result: DemoResult): string {
  const rows: [string, DemoRow][] = [
    [`SFT (${result.sftSteps} steps)`, result.sft],
    [`SFT + RL (${result.rlSteps} steps)`, result.rl],
    [`SFT + more SFT (${result.moreSftSteps} steps)`, result.moreSft],
  ];
  const k = result.samples;
  const width = Math.max(...rows.map(([name]) => name.length));
  const strategies = strategyColumns.map(([, short]) => short.padStart(7)).join(' ');
  const header =
    `${'policy'.padEnd(width)}  ${`Avg@${k}`.padStart(7)}  ${`Pass@${k}`.padStart(7)}  ${'greedy'.padStart(7)}` +
    `  calls  ${strategies}`;
  const lines = rows.map(([name, { sampled, greedy }]) => {
    const shares = strategyColumns
      .map(([strategy]) =>
        (sampled.strategies === undefined ? '-' : percent(sampled.strategies[strategy])).padStart(7),
      )
      .join(' ');
    return (
      `${name.padEnd(width)}  ${percent(sampled.accuracy).padStart(7)}  ${percent(sampled.passAtK).padStart(7)}  ` +
      `${(greedy === null ? '-' : percent(greedy.accuracy)).padStart(7)}  ` +
      `${sampled.toolCallsPerTrajectory.toFixed(2).padStart(5)}  ${shares}`
    );
  });
  const n = result.sft.sampled.problems;
  // Avg@K is a mean over problems of per-problem shares; its spread over problems bounds the standard error.
  const se = Math.sqrt((result.sft.sampled.accuracy * (1 - result.sft.sampled.accuracy)) / n);
  return [
    `Held-out arith-tool problems: ${n}, ${k} sample(s) each at the rollout temperature (standard error of an ` +
      `Avg@${k} at most about ${percent(se)}); greedy: one sample each`,
    `Strategy shares of the sampled answers: direct = no tool call, recov = a failed call then fixed, gave-up = ` +
      'only failed calls, stop-1 = fewer successful calls than the problem needs',
    header,
    ...lines,
    '',
    `Compute: RL ${result.rlSeconds.toFixed(0)} s, more SFT ${result.moreSftSeconds.toFixed(0)} s on this machine ` +
      `(demo.moreSftSteps: RL's estimated wall time on an idle 2-core machine, in SFT steps)`,
    ...mechanismLines(result.mechanisms),
    '',
  ].join('\n');
}

function mechanismLines(m: DemoMechanisms): string[] {
  const trend = (name: TrendName, format: (x: number) => string) =>
    `${orDash(m.trends[name].early, format)} -> ${orDash(m.trends[name].late, format)}`;
  const entropy = (x: number) => x.toFixed(3);
  return [
    `What TAO-RL acted on during RL (early = the first ${m.earlySteps} steps, late = the last ${m.earlySteps}):`,
    `  C1 (execution validity): ${orDash(m.allFailedCorrectEarly, percent)} of the early rollouts made only ` +
      `failed calls yet answered right; C1 dropped ${m.c1Dropped} trajectories in all`,
    `  post-tool bonus: ${orDash(m.decisionPointBonusShare, percent)} of the bonus tokens sit at decision points ` +
      `(the first token after a successful call: answer now or call again); entropy there ` +
      trend('decisionPointEntropy', entropy),
    `  tool calls per rollout ${trend('toolCallsPerTrajectory', (x) => x.toFixed(2))}; answers without a call ` +
      `${trend('direct', percent)}; stopped after one of two calls ${trend('stopped-early', percent)}`,
  ];
}

/**
 * Seconds per unit of work measured in the demo on an idle 2-core machine of the reference kind (seed 1,
 * docs/benchmarks/trainer.md, 2026-12-01), to estimate the time left: an SFT step, an RL step, and one held-out
 * sample (sampled and greedy passes together).
 */
const REFERENCE_SECONDS = { sftStep: 0.45, rlStep: 5.5, evaluationSample: 0.019 };

/**
 * `taorl demo`: SFT on real tool-use traces, then TAO-RL, on the embedded arith-tool task with the tiny model;
 * held-out evaluation after each, and the equal-compute baseline: the SFT policy given more SFT steps instead.
 * Every phase is bounded by steps and samples, so a seed gives the same numbers on a fast and a slow machine.
 */
export async function runDemo(session: Session, log: (text: string) => void): Promise<DemoResult> {
  const started = performance.now();
  const { config, policy } = session;
  mkdirSync(config.outDir, { recursive: true });
  const writer = new MetricsWriter(join(config.outDir, 'metrics.jsonl'));
  writer.truncateAfter(() => false);
  const problems = await problemSource(session);
  const test = problems.test();
  const evaluations = config.demo.greedy ? 2 : 1;
  const evaluationReference =
    test.length * (config.eval.samples + (config.demo.greedy ? 1 : 0)) * REFERENCE_SECONDS.evaluationSample;
  const sftReference = config.sft.steps * REFERENCE_SECONDS.sftStep + evaluationReference;
  const reference =
    sftReference +
    config.rl.steps * REFERENCE_SECONDS.rlStep +
    config.demo.moreSftSteps * REFERENCE_SECONDS.sftStep +
    2 * evaluationReference;
  log(
    `demo: SFT ${config.sft.steps} steps, RL ${config.rl.steps} steps, more SFT ${config.demo.moreSftSteps} steps, ` +
      `${3 * evaluations} held-out evaluations; about ${formatDuration(reference * 1000)} on an idle 2-core machine\n`,
  );
  const evaluateBoth = async (label: string, step: number): Promise<DemoRow> => {
    const sampled = await evaluate(session, test, { label, step, greedy: false });
    writer.write(sampled);
    if (!config.demo.greedy) return { sampled, greedy: null };
    const greedy = await evaluate(session, test, { label: greedyLabel(label), step, greedy: true });
    writer.write(greedy);
    return { sampled, greedy };
  };

  const traces = await arithSftTraces(session, config.sft.examples);
  const examples = traces.map(sftExampleOf);
  const sftStarted = performance.now();
  const trainer = await runSft(session, examples, writer, {
    steps: config.sft.steps,
    minutes: config.sft.minutes,
  });
  const sftSeconds = (performance.now() - sftStarted) / 1000;
  const sftSteps = trainer.steps;
  const sft = await evaluateBoth('SFT', sftSteps);
  // This machine's pace against the reference so far scales the reference time of what is left.
  const pace = (performance.now() - started) / 1000 / sftReference;
  log(
    `SFT: ${sftSteps} steps in ${sftSeconds.toFixed(0)} s, held-out Avg@${config.eval.samples} ${percent(sft.sampled.accuracy)}; ` +
      `about ${formatDuration(pace * (reference - sftReference) * 1000)} left\n`,
  );
  // Kept so the RL arms can be rerun or ablated from the same start (`taorl ablate --from <outDir>/sft-policy`).
  await policy.save(join(config.outDir, 'sft-policy'));

  const sftWeights: tf.Tensor[] = policy.trainableVariables().map((variable) => variable.clone());
  const rlStarted = performance.now();
  const rlLines: RlStepMetrics[] = await runRl(session, problems, writer, { firstStep: sftSteps });
  const rlSeconds = (performance.now() - rlStarted) / 1000;
  const rl = await evaluateBoth('SFT + RL', sftSteps + rlLines.length);
  log(
    `RL: ${rlLines.length} steps in ${rlSeconds.toFixed(0)} s, held-out Avg@${config.eval.samples} ${percent(rl.sampled.accuracy)}\n`,
  );
  await policy.save(join(config.outDir, 'rl-policy'));

  // The equal-compute baseline: back to the SFT weights, and more SFT steps (same optimizer, schedule floor).
  policy.trainableVariables().forEach((variable, i) => {
    variable.assign(sftWeights[i]!);
  });
  for (const weights of sftWeights) weights.dispose();
  const moreSftStarted = performance.now();
  await runSft(session, examples, writer, {
    steps: config.demo.moreSftSteps,
    minutes: 0,
    firstStep: sftSteps,
    trainer,
    branch: 'more SFT (baseline)',
  });
  const moreSftSeconds = (performance.now() - moreSftStarted) / 1000;
  const moreSft = await evaluateBoth('SFT + more SFT', trainer.steps);
  trainer.dispose();

  const reportPath = join(config.outDir, 'report.html');
  await writeReport(
    reportPath,
    `taorl demo (seed ${config.seed}): SFT, then TAO-RL against more SFT, on arith-tool`,
    readMetrics(writer.path),
    runSummary(config, sourceCommit()),
  );
  return {
    sft,
    rl,
    moreSft,
    samples: config.eval.samples,
    sftSteps,
    rlSteps: rlLines.length,
    moreSftSteps: config.demo.moreSftSteps,
    sftSeconds,
    rlSeconds,
    moreSftSeconds,
    totalSeconds: (performance.now() - started) / 1000,
    mechanisms: demoMechanisms(rlLines),
    reportPath,
  };
}
