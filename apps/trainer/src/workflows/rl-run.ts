import { join } from 'node:path';
import type { AdamWState, GrpoUpdater } from '@taorl/grpo';
import { grpoUpdate } from '@taorl/model';
import type { RlStepMetrics } from '@taorl/rl';
import { codeBlockRule, localPolicySync, nonFiniteRefusals, type RlStepContext, rlStep } from '@taorl/rl';
import { type CheckpointTarget, saveTrainCheckpoint } from '../checkpoint/train-checkpoint.js';
import { ConfigError } from '../config/config-error.js';
import type { TrainerConfig } from '../config/trainer-config.js';
import { apiKeyFromEnv } from '../remote/api-key.js';
import { RemoteRollouts } from '../remote/remote-rollouts.js';
import { idleFilters } from '../report/filter-table.js';
import type { MetricsWriter } from '../report/metrics.js';
import { ProgressBar } from '../report/progress.js';
import type { ProblemSource } from '../session/problem-source.js';
import { overlongOptionsOf, rolloutOptionsOf } from '../session/rollout-options.js';
import type { Session } from '../session/session.js';

export interface RlRunOptions {
  /** Metrics step numbers continue from here (e.g. after SFT steps in the same file). */
  firstStep?: number;
  /** RL steps already done (a resumed run continues after them). */
  completed?: number;
  /** Save a checkpoint (weights and optimizer state) there every config.rl.checkpointEvery steps and at the end. */
  checkpoints?: CheckpointTarget;
  /** The optimizer state of the checkpoint a resumed run continues from. */
  optimizerState?: AdamWState | null;
  quiet?: boolean;
  /** Notices during the run (a remote server leaving it); default: standard error. */
  log?: (message: string) => void;
}

const toStderr = (message: string) => {
  process.stderr.write(`${message}\n`);
};

/** The folder remote mode pushes weights to: remote.weightsDir, or <outDir>/served-weights. */
function weightsDir(config: TrainerConfig): string {
  return config.remote.weightsDir ?? join(config.outDir, 'served-weights');
}

/** Where the RL rollouts of a config come from, in words (the rl command prints it). */
export function rolloutMode(config: TrainerConfig): string {
  const { remote } = config;
  if (remote.endpoints.length === 0) return 'local rollouts: the trained policy samples them';
  return (
    `remote rollouts from ${remote.endpoints.join(', ')} (${remote.api} API), training local; weights pushed ` +
    `to ${weightsDir(config)} every ${remote.reloadEvery} step(s)`
  );
}

/**
 * Remote mode needs inference servers that compute the trained model; vLLM and SGLang implement no token shift
 * (docs/models.md), so a token-shift policy (model.tokenShift, or a token-shift folder in model.path) is refused
 * before anything runs rather than trained on rollouts of a different model.
 */
export function checkRemoteMode(session: Session): void {
  if (session.config.remote.endpoints.length > 0 && session.policy.config.tokenShift === true) {
    throw new ConfigError(
      session.source,
      'remote.endpoints',
      'the policy uses token shift (model.tokenShift or a token-shift model.path), which vLLM and SGLang do not ' +
        'implement, so a server would sample from a different model; train it with local rollouts',
    );
  }
}

/**
 * The RL context of a session: every stage's plug-in from the config, rollouts from the local policy or (remote
 * mode, remote.endpoints set) from inference servers that get the trained weights. Call `context.sync.start`
 * before the first step and `context.sync.close` at the end (`runRl` does).
 */
export function rlContext(
  session: Session,
  problems: ProblemSource,
  log: (message: string) => void = toStderr,
): { context: RlStepContext; updater: GrpoUpdater } {
  checkRemoteMode(session);
  const { config, components, policy, tokenizer, tools, workers } = session;
  const { rl, rollout, remote } = config;
  const { update, updater } = grpoUpdate(policy, tokenizer, {
    learningRate: rl.learningRate,
    maxGradNorm: rl.maxGradNorm,
    loss: components.loss,
    microBatchRows: rl.microBatchRows,
    temperature: rollout.temperature,
    ...components.learner,
    ...(workers === null
      ? {}
      : { microBatchGradients: (micros, settings) => workers.microBatchGradients(micros, settings) }),
  });
  const apiKey = apiKeyFromEnv();
  const servers =
    remote.endpoints.length === 0
      ? null
      : new RemoteRollouts(
          policy,
          {
            endpoints: remote.endpoints,
            api: remote.api,
            ...(remote.model === undefined ? {} : { model: remote.model }),
            topLogprobs: remote.topLogprobs,
            maxConcurrentPerServer: remote.maxConcurrentPerServer,
            timeoutMs: remote.timeoutMs,
            maxAttempts: remote.maxAttempts,
            ...(apiKey === undefined ? {} : { apiKey }),
          },
          { weightsDir: weightsDir(config), reloadEvery: remote.reloadEvery, log },
        );
  const context: RlStepContext = {
    policy: servers ?? session.rolloutPolicy,
    sync: servers ?? localPolicySync(),
    tokenizer,
    tools,
    hasCodeBlock: codeBlockRule(components.format),
    sandbox: session.sandbox,
    problems: problems.train,
    estimator: components.estimator,
    shaper: components.shaper,
    filter: components.filter,
    update,
    rollout: rolloutOptionsOf(config),
    groups: rl.groups,
    groupSize: rl.groupSize,
    maxGenBatches: rl.maxGenBatches,
    overlong: overlongOptionsOf(config),
    maxInfraFailureRate: config.tool.maxInfraFailureRate,
    seed: config.seed,
    ...(servers === null || session.toolTurns === null || remote.templateCheck === 0
      ? {}
      : { templateDrift: { turns: session.toolTurns, sampleSize: remote.templateCheck, log } }),
  };
  return { context, updater };
}

/** RL steps until config.rl.steps or config.rl.minutes, one metrics line per step. */
export async function runRl(
  session: Session,
  problems: ProblemSource,
  writer: MetricsWriter,
  options: RlRunOptions = {},
): Promise<RlStepMetrics[]> {
  const { rl } = session.config;
  const { context, updater } = rlContext(session, problems, options.log);
  const completed = options.completed ?? 0;
  const bar =
    options.quiet === true || completed >= rl.steps
      ? null
      : new ProgressBar({ label: 'rl', total: rl.steps - completed });
  const deadline = rl.minutes > 0 ? performance.now() + rl.minutes * 60_000 : Number.POSITIVE_INFINITY;
  const lines: RlStepMetrics[] = [];
  const { checkpoints } = options;
  try {
    if (options.optimizerState) updater.importOptimizerState(options.optimizerState);
    await context.sync.start(completed);
    for (let i = completed + 1; i <= rl.steps && performance.now() < deadline; i++) {
      const metrics = await rlStep(context, (options.firstStep ?? 0) + i);
      const refused = nonFiniteRefusals(metrics, session.config.rl.loss.name);
      if (refused !== null) (options.log ?? toStderr)(refused);
      writer.write(metrics);
      lines.push(metrics);
      const due = rl.checkpointEvery > 0 && i % rl.checkpointEvery === 0;
      if (checkpoints !== undefined && (due || i === rl.steps)) {
        await saveTrainCheckpoint(
          checkpoints.runDir,
          session.policy,
          { phase: 'rl', step: i, seed: session.config.seed, runId: checkpoints.runId },
          updater.exportOptimizerState(),
        );
      }
      bar?.tick(1, `reward ${metrics.reward.toFixed(3)} acc ${(100 * metrics.accuracy).toFixed(1)}%`);
    }
  } finally {
    updater.dispose();
    await context.sync.close();
  }
  bar?.finish();
  for (const notice of idleFilters(lines)) (options.log ?? toStderr)(notice);
  return lines;
}
