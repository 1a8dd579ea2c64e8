import {
  type AdvantageEstimator,
  computeAdvantages,
  type EntropyShaper,
  overlongShaper,
  shapeRewards,
} from '@taorl/advantage';
import { groupTrajectories, type Tokenizer, type Trajectory } from '@taorl/data';
import type { CodeRunner } from '@taorl/eval';
import { type Filter, isInfraFailure, toolOutage } from '@taorl/filter';
import type { RolloutOptions, RolloutPolicy, ToolEnvironment } from '@taorl/rollout';
import {
  countEndings,
  deriveSeed,
  policyTokenCount,
  type RolloutEnding,
  rolloutAndGrade,
  samplesOf,
} from '@taorl/rollout';
import { decisionPointStats } from './decision-points';
import type { PolicySync } from './policy-sync';
import type { Problem } from './problem';
import { rolloutStats } from './rollout-stats';
import type { RlStepMetrics } from './step-metrics';
import { taskBreakdown } from './task-breakdown';
import { checkTemplateDrift, type TemplateDriftCheck, type TemplateDriftCount } from './template-drift';
import { withTurnFacts } from './turn-facts';
import type { UpdateStats } from './update-stats';

/** One policy-gradient update on a batch with per-token advantages aligned to each trajectory's lossMask. */
export type PolicyUpdate = (
  batch: readonly Trajectory[],
  advantages: readonly Float32Array[],
) => Promise<UpdateStats>;

/** Everything one RL step composes, each part chosen by name in the config. */
export interface RlStepContext {
  /** The policy rollouts sample from: the trained policy, or inference servers given its weights (remote mode). */
  policy: RolloutPolicy;
  /** Keeps `policy` on the trained weights (`update` trains them); call its `start` before the first step. */
  sync: PolicySync;
  tokenizer: Tokenizer;
  tools: ToolEnvironment;
  /** Whether an assistant turn holds a complete code block, for SimpleTIR's void turns (turn-facts codeBlockRule). */
  hasCodeBlock: (turn: string) => boolean;
  /** Judges the programs of code problems (the code-correctness reward). */
  sandbox?: CodeRunner;
  /** `count` problems for refill batch `batch` of step `step` (deterministic in both). */
  problems: (step: number, batch: number, count: number) => Problem[];
  estimator: AdvantageEstimator;
  shaper: EntropyShaper;
  /** The trajectory filters composed in order; null = keep everything. */
  filter: Filter | null;
  update: PolicyUpdate;
  rollout: Omit<RolloutOptions, 'seed'>;
  groups: number;
  groupSize: number;
  maxGenBatches: number;
  /** DAPO soft overlong punishment, or null when off; `policyTokensOnly`: the length is the policy's tokens. */
  overlong: { buffer: number; factor: number; policyTokensOnly: boolean } | null;
  /**
   * The largest share of a step's tool calls that may fail in the sandbox itself (after the tool environment's
   * retries); past it the step throws instead of training. Below it, their trajectories are dropped (tool-outage).
   */
  maxInfraFailureRate: number;
  seed: number;
  /** Remote mode with template tool turns: check a sample of each batch against the chat template. */
  templateDrift?: TemplateDriftCheck;
}

/** Trajectories that met a tool outage leave every batch, whatever filters the config names. */
const outageFilter = toolOutage();

/** Throws when more than `max` of the tool calls in `trajectories` failed in the sandbox itself. */
function checkInfraFailures(trajectories: readonly Trajectory[], ctx: RlStepContext, step: number): void {
  const calls = trajectories.flatMap((t) => t.toolCalls);
  const failed = calls.filter(isInfraFailure).length;
  if (failed === 0 || failed <= ctx.maxInfraFailureRate * calls.length) return;
  const share = ((100 * failed) / calls.length).toFixed(1);
  const last = ctx.tools.lastInfraFailure?.();
  throw new Error(
    `RL step ${step}: ${failed} of ${calls.length} tool calls (${share}%) failed in the sandbox itself, more than ` +
      `tool.maxInfraFailureRate (${ctx.maxInfraFailureRate}); the step is not trained on a tool outage` +
      (last ? `. The sandbox said: ${last}` : ''),
  );
}

const elapsed = (since: number) => performance.now() - since;

/** Each named metric's mean over the records that have it (a filter's metrics over a step's rollout batches). */
function meanByName(records: readonly Record<string, number>[]): Record<string, number> {
  const names = [...new Set(records.flatMap((record) => Object.keys(record)))];
  return Object.fromEntries(
    names.map((name) => {
      const values = records.flatMap((record) => (name in record ? [record[name]!] : []));
      return [name, values.reduce((sum, value) => sum + value, 0) / values.length];
    }),
  );
}

/**
 * One TAO-RL step, stage by stage as in ARCHITECTURE.md: roll out groups, grade, shape rewards, filter (C1, C2),
 * refill while too few groups survive (bounded), compute advantages with the entropy shaper, update the policy,
 * bring the rollout policy up to date.
 */
export async function rlStep(ctx: RlStepContext, step: number): Promise<RlStepMetrics> {
  const started = performance.now();
  const time = { generationMs: 0, sandboxMs: 0, scoringMs: 0, trainingMs: 0, weightSyncMs: 0, totalMs: 0 };
  const rolloutVersion = ctx.sync.stepStarted();
  const generated: Trajectory[] = [];
  const kept: Trajectory[] = [];
  const filterDrops: Record<string, number> = {};
  const filterMetrics: Record<string, number>[] = [];
  const filterMasks: Record<string, number> = {};
  const filterResamples: Record<string, number> = {};
  const filterActions: Record<string, number> = {};
  let voidTurns = 0;
  const endings: RolloutEnding[] = [];
  let unparseableCalls = 0;
  const problemsById = new Map<string, Problem>();
  let genBatches = 0;
  const drift: TemplateDriftCount = { checked: 0, drifted: 0 };

  while (groupTrajectories(kept).length < ctx.groups && genBatches < ctx.maxGenBatches) {
    // 1. Rollouts: groupSize samples of each problem, tool calls run in the sandbox, final answers graded.
    const problems = ctx.problems(step, genBatches, ctx.groups);
    for (const problem of problems) problemsById.set(problem.id, problem);
    const rolled = await rolloutAndGrade(ctx.policy, ctx, samplesOf(problems, ctx.groupSize), {
      ...ctx.rollout,
      seed: deriveSeed(ctx.seed, 'rl-rollout', step, genBatches),
    });
    if (ctx.templateDrift !== undefined) {
      checkTemplateDrift(ctx.templateDrift, rolled.trajectories, problemsById, ctx.tokenizer, drift);
    }
    endings.push(...rolled.endings);
    for (const count of rolled.unparseableCalls) unparseableCalls += count;
    time.generationMs += rolled.timing.generationMs;
    time.sandboxMs += rolled.timing.sandboxMs;
    const scoring = performance.now();

    // 2. Rewards: 1 for a correct final answer (@taorl/eval), then the overlong shaping (@taorl/advantage).
    const graded = rolled.trajectories;
    const shaped =
      ctx.overlong === null
        ? null
        : shapeRewards(graded, [
            overlongShaper({
              maxLength: ctx.rollout.maxResponseTokens,
              buffer: ctx.overlong.buffer,
              factor: ctx.overlong.factor,
              ...(ctx.overlong.policyTokensOnly ? { lengthOf: policyTokenCount } : {}),
            }),
          ]);
    const decode = (ids: Int32Array) => ctx.tokenizer.decode(ids);
    // SimpleTIR's void turns, and the answer and turn counts resample-on-correct's format penalty reads.
    const rewarded = graded.map((t, i) =>
      withTurnFacts(shaped === null ? t : { ...t, reward: shaped.rewards[i]! }, decode, ctx.hasCodeBlock),
    );
    voidTurns += rewarded.filter((t) => t.voidTurn).length;
    generated.push(...rewarded);
    checkInfraFailures(generated, ctx, step);

    // 3. Filtering (@taorl/filter): tool outages out first, whatever the config names, then the configured filters
    // in order; each reason counted per action.
    const reachable = outageFilter.apply(rewarded);
    const filtered = ctx.filter?.apply(reachable.kept);
    const count = (into: Record<string, number>, items: readonly { reason: string }[] | undefined) => {
      for (const { reason } of items ?? []) into[reason] = (into[reason] ?? 0) + 1;
    };
    count(filterDrops, reachable.dropped);
    count(filterDrops, filtered?.dropped);
    count(filterMasks, filtered?.masked);
    count(filterResamples, filtered?.resampled);
    for (const stage of filtered?.stats.stages ?? []) {
      const acted = [stage.dropped, stage.masked, stage.resampled].flatMap(Object.values);
      filterActions[stage.filter] = (filterActions[stage.filter] ?? 0) + acted.reduce((a, b) => a + b, 0);
    }
    if (filtered?.stats.metrics !== undefined) filterMetrics.push({ ...filtered.stats.metrics });
    kept.push(...(filtered?.kept ?? reachable.kept));
    genBatches++;
    time.scoringMs += rolled.gradingMs + elapsed(scoring);
  }

  // 4. Advantages: group-relative, broadcast to policy tokens, entropy bonus after successful tool calls.
  const scoring = performance.now();
  const batchGroups = groupTrajectories(kept).slice(0, ctx.groups);
  const batch = batchGroups.flatMap((group) => group.trajectories);
  const advantages = computeAdvantages(batch, {
    estimator: ctx.estimator,
    shaper: ctx.shaper,
    layout: 'separate',
  });
  time.scoringMs += elapsed(scoring);

  // 5. Policy update (@taorl/grpo): clipped surrogate, grad clip, optimizer step.
  const training = performance.now();
  const update =
    batch.length === 0
      ? { loss: 0, clipFracLow: 0, clipFracHigh: 0, approxKl: 0, gradNorm: 0 }
      : await ctx.update(batch, advantages.tokens.perTrajectory);
  time.trainingMs = elapsed(training);

  // 6. Weight sync: the rollout policy catches up with the trained weights (remote: a push every reloadEvery steps).
  const syncing = performance.now();
  const synced = await ctx.sync.trained();
  time.weightSyncMs = elapsed(syncing);
  time.totalMs = elapsed(started);

  const { policyTokens, ...stats } = rolloutStats(generated);
  const { sequence, shaping } = advantages.diagnostics;
  const breakdown = taskBreakdown(generated, problemsById);
  return {
    phase: 'rl',
    step,
    ...stats,
    filterDrops,
    ...(filterMetrics.length === 0 ? {} : { filterMetrics: meanByName(filterMetrics) }),
    filterMasks,
    filterResamples,
    filterActions,
    trajectoriesGenerated: generated.length,
    voidTurnRate: voidTurns / Math.max(1, generated.length),
    endings: countEndings(endings),
    unparseableCalls,
    ...(drift.checked === 0 ? {} : { templateDriftShare: drift.drifted / drift.checked }),
    trajectoriesKept: batch.length,
    groupsKept: batchGroups.length,
    genBatches,
    estimator: sequence.estimator,
    meanAbsAdvantage: sequence.meanAbsAdvantage,
    shaper: shaping.shaper,
    bonus: { tokens: shaping.selectedTokens, mean: shaping.meanBonus, max: shaping.maxBonus },
    ...(shaping.metrics === undefined ? {} : { shaperMetrics: { ...shaping.metrics } }),
    decisionPoints: decisionPointStats(batch, shaping.entropyThreshold),
    ...(breakdown === null ? {} : { strategies: breakdown.strategies }),
    ...update,
    tokensPerSecond: policyTokens / (time.totalMs / 1000),
    time,
    ...rolloutVersion,
    entropySource: ctx.sync.entropySource,
    ...synced,
  };
}
