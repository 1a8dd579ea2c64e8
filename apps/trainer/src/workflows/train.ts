import { join } from 'node:path';
import { writeReport } from '../report/html-report.js';
import { type MetricsLine, readMetrics } from '../report/metrics.js';
import { algorithmTitle, runSummary, sourceCommit } from '../report/run-summary.js';
import { problemSource } from '../session/problem-source.js';
import type { Session } from '../session/session.js';
import { evaluate, greedyLabel } from './evaluate.js';
import { checkRemoteMode, rolloutMode, runRl } from './rl-run.js';
import { openRun, type RunFolderFlags, type RunIO } from './run-folder.js';
import { runSft, sftExamples, sftTrainer } from './sft-run.js';

/** The label of the held-out evaluation after the last RL step (`--eval-after`). */
export const AFTER_RL = 'after RL';

/** What a finished training run left in its outDir. */
export interface TrainingResult {
  /** Every line of <outDir>/metrics.jsonl, those of the steps a resumed run continued from included. */
  metrics: MetricsLine[];
  /** The run's steps in all, resumed ones included. */
  steps: number;
  /** Where the trained policy is: <outDir>/policy. */
  policyDir: string;
}

export interface TrainRlOptions {
  /** What happens to a run already in outDir: refused, deleted (overwrite) or continued (resume). */
  run: RunFolderFlags;
  /** Held-out evaluation before the first step (a new run only). */
  evalBefore?: boolean;
  /** Held-out evaluation after the last step. */
  evalAfter?: boolean;
  /**
   * Each of those evaluations twice: sampled at the rollout temperature (Avg@K, Pass@K, whatever eval.greedy says)
   * and greedy (one sample per problem), the greedy line labelled '<label> (greedy)'.
   */
  evalGreedy?: boolean;
  /** No progress bars. */
  quiet?: boolean;
}

/** What a resumed run that has nothing left to train says (it still saves its policy and writes its report). */
const completeNotice = (phase: string, steps: number) =>
  `${phase}: the run is complete (${steps} of ${steps} steps); nothing to train\n`;

/** Saves the policy and writes report.html from the run's metrics. */
async function finishRun(
  session: Session,
  metricsPath: string,
  title: string,
): Promise<Omit<TrainingResult, 'steps'>> {
  const { outDir } = session.config;
  const policyDir = join(outDir, 'policy');
  await session.policy.save(policyDir);
  const metrics = readMetrics(metricsPath);
  const { config } = session;
  const summary = runSummary(config, sourceCommit());
  await writeReport(
    join(outDir, 'report.html'),
    `${title} (seed ${config.seed}): ${outDir}`,
    metrics,
    summary,
  );
  return { metrics, policyDir };
}

/**
 * `taorl sft` as a function: opens the run folder as `run` says (`openRun`: a new run, or the latest checkpoint
 * resumed with its optimizer state), trains the remaining config.sft.steps with checkpoints, saves the policy to
 * <outDir>/policy and writes report.html. Notices (resuming, config changes) go to `io`.
 */
export async function trainSft(
  session: Session,
  run: RunFolderFlags,
  io: RunIO,
  options: { quiet?: boolean } = {},
): Promise<TrainingResult> {
  const { config } = session;
  const { runId, writer, completed, optimizerState } = await openRun(
    session,
    'sft',
    run,
    io,
    (line) => line.phase === 'sft',
  );
  if (completed >= config.sft.steps) io.out(completeNotice('SFT', completed));
  const trainer = sftTrainer(session);
  if (optimizerState !== null) trainer.importOptimizerState(optimizerState);
  const examples = await sftExamples(session);
  await runSft(session, examples, writer, {
    steps: Math.max(0, config.sft.steps - completed),
    minutes: config.sft.minutes,
    firstStep: completed,
    trainer,
    checkpoints: { runDir: config.outDir, runId },
    quiet: options.quiet,
  });
  await trainer.dispose();
  const result = await finishRun(session, writer.path, 'taorl sft');
  return { ...result, steps: result.metrics.length };
}

/**
 * `taorl rl` as a function: opens the run folder as `options.run` says (`openRun`: a new run, or the latest
 * checkpoint resumed with its optimizer state, the remote servers given its weights), evaluates before and after
 * when asked, trains until config.rl.steps or config.rl.minutes with checkpoints, saves the policy to
 * <outDir>/policy and writes report.html. Notices (resuming, the rollout mode, a server leaving) go to `io`.
 */
export async function trainRl(session: Session, options: TrainRlOptions, io: RunIO): Promise<TrainingResult> {
  const { config } = session;
  const { quiet } = options;
  checkRemoteMode(session);
  const { runId, writer, completed, optimizerState } = await openRun(
    session,
    'rl',
    options.run,
    io,
    (line) => !(line.phase === 'eval' && line.step > 0),
  );
  const problems = await problemSource(session);
  const heldOut = async (label: string, step: number) => {
    const greedyToo = options.evalGreedy === true;
    const test = problems.test();
    // With the greedy line, the first is sampled whatever eval.greedy says: the pair is Avg@K and greedy.
    writer.write(
      await evaluate(session, test, { label, step, quiet, ...(greedyToo ? { greedy: false } : {}) }),
    );
    if (greedyToo)
      writer.write(await evaluate(session, test, { label: greedyLabel(label), step, greedy: true, quiet }));
  };
  if (options.evalBefore === true && completed === 0) await heldOut('before RL', 0);
  io.out(`RL: ${rolloutMode(config)}\n`);
  if (completed >= config.rl.steps) io.out(completeNotice('RL', completed));
  const lines = await runRl(session, problems, writer, {
    completed,
    checkpoints: { runDir: config.outDir, runId },
    optimizerState,
    log: (message) => io.err(`warning: ${message}\n`),
    quiet,
  });
  const steps = completed + lines.length;
  if (options.evalAfter === true) await heldOut(AFTER_RL, steps);
  return { ...(await finishRun(session, writer.path, `taorl rl, ${algorithmTitle(session.config)}`)), steps };
}
