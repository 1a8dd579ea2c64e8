import type { Trajectory } from '@taorl/data';
import { passAtK } from '@taorl/eval';
import type { RolloutPolicy } from '../model/policy.js';
import type { EvalMetrics } from '../report/metrics.js';
import { ProgressBar } from '../report/progress.js';
import { gradeTrajectories, type Problem } from '../rl/rewards.js';
import { rolloutStats } from '../rl/rollout-stats.js';
import { rollout } from '../rollout/rollout-engine.js';
import { deriveSeed } from '../util/seeds.js';
import type { Session } from './session.js';
import { taskBreakdown } from './task-breakdown.js';

export interface EvaluateOptions {
  label: string;
  /** Metrics step this evaluation belongs to. */
  step: number;
  /** Rollouts generated together. */
  batchSize?: number;
  /** The policy that answers (default: the session's rollout policy), e.g. a RemotePolicy over servers. */
  policy?: RolloutPolicy;
  /** Greedy decoding, one sample per problem (default: config.eval.greedy). */
  greedy?: boolean;
  quiet?: boolean;
}

/**
 * Held-out evaluation: K samples per problem (greedy when config.eval.greedy), graded on the final answer.
 * Accuracy is Avg@K; pass@K is the unbiased estimator of @taorl/eval.
 */
export async function evaluate(
  session: Session,
  problems: readonly Problem[],
  options: EvaluateOptions,
): Promise<EvalMetrics> {
  const { config, tokenizer, tools } = session;
  const policy = options.policy ?? session.rolloutPolicy;
  const greedy = options.greedy ?? config.eval.greedy;
  // An explicit greedy pass takes one sample per problem: more would all be the same.
  const k = options.greedy === true ? 1 : config.eval.samples;
  const batchSize = options.batchSize ?? 64;
  const started = performance.now();
  const prompts = problems.flatMap((problem) =>
    Array.from({ length: k }, () => ({ groupId: problem.id, promptIds: problem.promptIds })),
  );
  const golds = new Map(problems.map((problem) => [problem.id, problem.gold]));
  const bar =
    options.quiet === true
      ? null
      : new ProgressBar({ label: `eval ${options.label}`, total: prompts.length });
  const sampling = greedy
    ? { temperature: 0 }
    : { temperature: config.rollout.temperature, topP: config.rollout.topP, topK: config.rollout.topK };
  const starts = Array.from({ length: Math.ceil(prompts.length / batchSize) }, (_, i) => i * batchSize);
  const gradedChunks: Trajectory[][] = [];
  const evaluateChunk = async (start: number): Promise<Trajectory[]> => {
    const chunk = prompts.slice(start, start + batchSize);
    const { trajectories } = await rollout(policy, tokenizer, tools, chunk, {
      maxTurns: config.rollout.maxTurns,
      maxResponseTokens: config.rollout.maxResponseTokens,
      sampling,
      seed: deriveSeed(config.seed, 'eval', start),
      lanes: config.rollout.lanes,
    });
    bar?.tick(chunk.length);
    return gradeTrajectories(
      trajectories,
      (id) => golds.get(id)!,
      (ids) => tokenizer.decode(ids),
    );
  };
  // Chunks are independent (each has its own seed), so a policy that takes concurrent calls (rollout workers,
  // inference servers) gets two at once: while one chunk's last lane finishes, the other's lanes keep the other
  // workers busy. The result is the same as one chunk after the other. After a failure no further chunk starts,
  // and the evaluation rejects once the chunk still running has settled.
  const inFlight = policy.concurrentGenerate === true ? 2 : 1;
  const failures: unknown[] = [];
  let next = 0;
  const runner = async () => {
    while (failures.length === 0 && next < starts.length) {
      const index = next++;
      try {
        gradedChunks[index] = await evaluateChunk(starts[index]!);
      } catch (error) {
        failures.push(error);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, starts.length) }, runner));
  if (failures.length > 0) throw failures[0];
  const graded = gradedChunks.flat();
  const correctByProblem = new Map<string, number>();
  for (const t of graded)
    correctByProblem.set(t.groupId, (correctByProblem.get(t.groupId) ?? 0) + (t.correct ? 1 : 0));
  const pass = [...correctByProblem.values()].map((c) => passAtK(k, c, k));
  const stats = rolloutStats(graded);
  const breakdown = taskBreakdown(graded, new Map(problems.map((problem) => [problem.id, problem])));
  const result: EvalMetrics = {
    phase: 'eval',
    step: options.step,
    label: options.label,
    problems: problems.length,
    accuracy: stats.accuracy,
    passAtK: pass.reduce((sum, p) => sum + p, 0) / Math.max(1, pass.length),
    toolCallsPerTrajectory: stats.toolCallsPerTrajectory,
    toolSuccessRate: stats.toolSuccessRate,
    allFailedCorrect: stats.allFailedCorrect,
    responseTokens: stats.responseTokens,
    seconds: (performance.now() - started) / 1000,
    greedy,
    ...breakdown,
  };
  bar?.finish(`accuracy ${(100 * result.accuracy).toFixed(1)}%`);
  return result;
}
