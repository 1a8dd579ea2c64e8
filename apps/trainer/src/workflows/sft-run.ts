import {
  type ArithTrace,
  arithMix,
  type ChainTrace,
  generateArithTraces,
  generateChainTraces,
  type SftExample,
  type Trajectory,
  toSftExample,
  trainingSequence,
} from '@taorl/data';
import { loadDataset } from '@taorl/data/node';
import { markdownFormat } from '@taorl/sandbox';
import { type CheckpointTarget, saveTrainCheckpoint } from '../checkpoint/train-checkpoint.js';
import { ConfigError } from '../config/config-error.js';
import type { MetricsWriter, SftStepMetrics } from '../report/metrics.js';
import { ProgressBar } from '../report/progress.js';
import { arithProblems, chainProblems } from '../session/problem-source.js';
import type { Session } from '../session/session.js';
import { SftTrainer } from '../sft/sft-trainer.js';
import { epochStream, lengthGroupedBatches, streamBatches } from '../util/batching.js';
import { deriveSeed } from '../util/seeds.js';

/**
 * Draws a task's demonstrations (one call) under `bar` (null: quiet; its total the number of problems), one tick per
 * demonstration written: on a slow sandbox this takes an hour, and a bar that moved only at the end could not be
 * told from a hang. The bar ends with their count.
 */
export async function withTracesBar<T>(
  bar: ProgressBar | null,
  draw: (onProgress: () => void) => Promise<T[]>,
): Promise<T[]> {
  const traces = await draw(() => bar?.tick(1));
  bar?.finish(`${traces.length} traces`);
  return traces;
}

/** The "sft traces" bar over `total` demonstrations, unless quiet. */
const tracesBar = (quiet: boolean, total: number) =>
  quiet ? null : new ProgressBar({ label: 'sft traces', total });

/**
 * What both embedded tasks' demonstrations are made with: the session's sandbox runs their code and its real output
 * is inserted with lossMask 0; they are written in the markdown tool format.
 */
function demonstrationOptions(session: Session) {
  const { config } = session;
  return {
    sandbox: session.sandbox,
    format: markdownFormat,
    tokenizer: session.tokenizer,
    template: session.template,
    seed: deriveSeed(config.seed, 'sft-traces'),
    maxObservationChars: config.tool.observationChars,
  };
}

/** Real end-to-end demonstrations of the arith-tool task (task.mix's strategies) from @taorl/data. */
export async function arithSftTraces(session: Session, count: number, quiet = false): Promise<ArithTrace[]> {
  const { config } = session;
  const problems = arithProblems(session, 'train', count, deriveSeed(config.seed, 'sft-problems'));
  return withTracesBar(tracesBar(quiet, problems.length), (onProgress) =>
    generateArithTraces(problems, {
      ...demonstrationOptions(session),
      ...arithMix(config.task.mix).strategies,
      onProgress,
    }),
  );
}

/**
 * Real end-to-end demonstrations of the chain-tool task (task.chain's knobs, @taorl/data's demonstration shares);
 * a demonstration must fit the model's context.
 */
export async function chainSftTraces(session: Session, count: number, quiet = false): Promise<ChainTrace[]> {
  const problems = chainProblems(session, 'train', count, deriveSeed(session.config.seed, 'sft-problems'));
  return withTracesBar(tracesBar(quiet, problems.length), (onProgress) =>
    generateChainTraces(problems, {
      ...demonstrationOptions(session),
      contextTokens: session.contextLength,
      onProgress,
    }),
  );
}

/** A trajectory as an SFT example: exactly its prompt + response tokens, loss on its policy tokens. */
export const sftExampleOf = (trajectory: Trajectory): SftExample => {
  const { inputIds, lossMask } = trainingSequence(trajectory);
  return { inputIds, lossMask };
};

/** The configured SFT data: generated arith-tool traces, or a messages + tools JSONL/parquet file. */
export async function sftExamples(session: Session): Promise<SftExample[]> {
  const { sft } = session.config;
  if (sft.source === 'generator') {
    const traces =
      session.config.task.name === 'chain-tool'
        ? await chainSftTraces(session, sft.examples)
        : await arithSftTraces(session, sft.examples);
    return traces.map(sftExampleOf);
  }
  if (sft.file === undefined)
    throw new ConfigError(session.source, 'sft.file', "required when sft.source is 'file'");
  const examples: SftExample[] = [];
  try {
    for await (const conversation of loadDataset(sft.file, 'sft')) {
      examples.push(toSftExample(conversation, session.tokenizer, { template: session.template }));
    }
  } catch (error) {
    throw new ConfigError(session.source, 'sft.file', (error as Error).message);
  }
  if (examples.length === 0)
    throw new ConfigError(session.source, 'sft.file', `${sft.file} holds no conversations`);
  return examples;
}

/** Share of a mixed-length batch drawn from its group's shortest items (see lengthGroupedBatches). */
const MIXED_SHORT_SHARE = 0.25;

/** Batches per length-sorted group (see lengthGroupedBatches). */
const LENGTH_GROUP_BATCHES = 8;

export interface SftRunOptions {
  steps: number;
  /** Wall-clock budget in minutes (0 = none). */
  minutes: number;
  /** Metrics step numbers continue from here. */
  firstStep?: number;
  /** Continue an existing trainer (keeps its optimizer state and schedule position). */
  trainer?: SftTrainer;
  /** Save a checkpoint (weights and optimizer state) there every config.sft.checkpointEvery steps and at the end. */
  checkpoints?: CheckpointTarget;
  quiet?: boolean;
  /** The name of a baseline branched off an earlier SFT run, written on each line (SftStepMetrics.branch). */
  branch?: string;
}

/** The SFT trainer a config describes (warm-up + cosine over config.sft.steps). */
export function sftTrainer(session: Session): SftTrainer {
  const { sft } = session.config;
  return new SftTrainer(session.policy, {
    learningRate: sft.learningRate,
    schedule: {
      kind: 'cosine',
      totalSteps: Math.max(1, sft.steps),
      warmupSteps: Math.round(sft.warmupFraction * sft.steps),
      minRatio: sft.minLrRatio,
    },
    maxGradNorm: session.config.rl.maxGradNorm,
    padId: session.tokenizer.padTokenId,
    ...(session.workers === null ? {} : { workers: session.workers }),
  });
}

/**
 * SFT steps over `examples` in seeded epoch permutations, optionally length-grouped to limit padding (step k's
 * batch depends only on the seed and k), one metrics line per step. Returns the trainer so a caller can continue it.
 */
export async function runSft(
  session: Session,
  examples: readonly SftExample[],
  writer: MetricsWriter,
  options: SftRunOptions,
): Promise<SftTrainer> {
  const { config } = session;
  const { batchSize } = config.sft;
  const trainer = options.trainer ?? sftTrainer(session);
  const first = options.firstStep ?? 0;
  const bar =
    options.quiet === true || options.steps <= 0
      ? null
      : new ProgressBar({ label: 'sft', total: options.steps });
  const deadline =
    options.minutes > 0 ? performance.now() + options.minutes * 60_000 : Number.POSITIVE_INFINITY;
  const stream = epochStream(examples.length, config.seed, 'sft-order');
  const batchAt =
    config.sft.batching === 'random'
      ? streamBatches(stream, batchSize)
      : lengthGroupedBatches(
          stream,
          (item) => examples[item]!.inputIds.length,
          batchSize,
          LENGTH_GROUP_BATCHES,
          config.seed,
          config.sft.batching === 'mixed-length' ? MIXED_SHORT_SHARE : 0,
        );
  for (let i = 0; i < options.steps && performance.now() < deadline; i++) {
    const started = performance.now();
    const batch = batchAt(trainer.steps).map((item) => examples[item]!);
    const stats = await trainer.step(batch);
    const totalMs = performance.now() - started;
    const line: SftStepMetrics = {
      phase: 'sft',
      step: first + i + 1,
      loss: stats.loss,
      lr: stats.learningRate,
      gradNorm: stats.gradNorm,
      ...(stats.skipped ? { skippedUpdates: [stats.skipReason ?? ''] } : {}),
      tokens: stats.tokens,
      tokensPerSecond: stats.tokens / (totalMs / 1000),
      time: { trainingMs: totalMs, totalMs },
      ...(options.branch === undefined ? {} : { branch: options.branch }),
    };
    writer.write(line);
    const every = config.sft.checkpointEvery;
    const last = i + 1 === options.steps || performance.now() >= deadline;
    const { checkpoints } = options;
    if (checkpoints !== undefined && ((every > 0 && trainer.steps % every === 0) || last)) {
      await saveTrainCheckpoint(
        checkpoints.runDir,
        session.policy,
        { phase: 'sft', step: trainer.steps, seed: config.seed, runId: checkpoints.runId },
        trainer.exportOptimizerState(),
      );
    }
    bar?.tick(1, `loss ${stats.loss.toFixed(3)}`);
  }
  bar?.finish();
  return trainer;
}
