import type { Tokenizer } from '@taorl/data';
import {
  GrpoUpdater,
  type MicroBatchGradients,
  type PolicyLossConfig,
  type RolloutCorrectionOptions,
} from '@taorl/grpo';
import type { PolicyUpdate, UpdateStats } from '@taorl/rl';
import type { Policy } from './policy';
import { paddedBatch } from './update-batch';

/** How `grpoUpdate` trains: @taorl/grpo's GrpoUpdater options, and where pi_old comes from. */
export interface GrpoUpdateOptions {
  /** Peak learning rate (GrpoUpdater's learningRate). */
  learningRate: number;
  /** Global gradient norm clip. */
  maxGradNorm: number;
  /** The policy loss, by its registry name with its options. */
  loss: PolicyLossConfig;
  /** Most rows per forward/backward pass; gradients accumulate over the batch's micro-batches. */
  microBatchRows: number;
  /** The rollouts' sampling temperature: the learner divides its logits by it too. */
  temperature: number;
  /**
   * Where the micro-batch gradients are computed: the session's worker pool (`PolicyWorkers.microBatchGradients`,
   * with config `workers` > 1), or, when omitted, this thread. Same update either way, bit for bit.
   */
  microBatchGradients?: MicroBatchGradients;
  /**
   * Where pi_old comes from: `trainer` (the updater scores the batch before the update; the rollout's log-probs
   * become its rolloutLogProbs, measured and, with `rolloutCorrection`, corrected for) or `rollout` (default).
   */
  oldLogProbs?: 'trainer' | 'rollout';
  /** The rollout correction's options; default none (needs oldLogProbs `trainer`). */
  rolloutCorrection?: RolloutCorrectionOptions | null;
}

const mean = (values: readonly number[]) =>
  values.reduce((sum, v) => sum + v, 0) / Math.max(1, values.length);

/** The loss metrics a metrics line has as fields of their own (under these names); the rest go to lossMetrics. */
const lineFields: Record<string, keyof UpdateStats> = {
  loss: 'loss',
  clipFractionLow: 'clipFracLow',
  clipFractionHigh: 'clipFracHigh',
  approxKl: 'approxKl',
};

/**
 * The RL step's update stage: @taorl/grpo's GrpoUpdater on the padded batch, its metrics averaged over the steps
 * that computed them (those the NaN/Inf guard refused included), and the reasons of the steps it refused.
 */
export function grpoUpdate(
  policy: Policy,
  tokenizer: Tokenizer,
  options: GrpoUpdateOptions,
): { update: PolicyUpdate; updater: GrpoUpdater } {
  const updater = new GrpoUpdater({
    model: (tokens) => policy.logits(tokens),
    variables: policy.trainableVariables(),
    learningRate: options.learningRate,
    maxGradNorm: options.maxGradNorm,
    loss: options.loss,
    microBatchRows: options.microBatchRows,
    temperature: options.temperature,
    rolloutCorrection: options.rolloutCorrection ?? null,
    ...(options.microBatchGradients === undefined
      ? {}
      : { microBatchGradients: options.microBatchGradients }),
  });
  const update: PolicyUpdate = async (batch, advantages): Promise<UpdateStats> => {
    const { oldLogProbs, ...padded } = paddedBatch(batch, advantages, tokenizer.padTokenId);
    const report = await updater.update(
      options.oldLogProbs === 'trainer'
        ? { ...padded, rolloutLogProbs: oldLogProbs }
        : { ...padded, oldLogProbs },
    );
    // The steps that computed a loss, a refused one's non-finite loss included: a NaN loss is written as such
    // (null in metrics.jsonl), not as the mean of the steps that trained, or 0 when none did.
    const steps = report.steps.filter((step) => Object.keys(step.losses).length > 0);
    const skippedUpdates = report.steps.flatMap((step) => (step.skipped ? [step.skipReason ?? ''] : []));
    const metric = (name: string) => mean(steps.map((step) => step.losses[name] ?? 0));
    const reported = [...new Set(steps.flatMap((step) => Object.keys(step.losses)))];
    const own = reported.filter((name) => lineFields[name] === undefined);
    return {
      loss: metric('loss'),
      approxKl: metric('approxKl'),
      ...Object.fromEntries(
        reported.flatMap((name) => {
          const field = lineFields[name];
          return field === undefined ? [] : [[field, metric(name)]];
        }),
      ),
      ...(own.length === 0
        ? {}
        : { lossMetrics: Object.fromEntries(own.map((name) => [name, metric(name)])) }),
      gradNorm: mean(steps.map((step) => step.gradNorm)),
      ...(skippedUpdates.length === 0 ? {} : { skippedUpdates }),
      ...(report.correction === undefined ? {} : { correction: report.correction }),
    };
  };
  return { update, updater };
}
