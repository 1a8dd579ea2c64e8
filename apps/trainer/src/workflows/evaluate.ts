import type { Trajectory } from '@taorl/data';
import { scoreBenchmark } from '@taorl/eval';
import type { Problem } from '@taorl/rl';
import { decisionPointStats, rolloutStats, taskBreakdown } from '@taorl/rl';
import type { RolloutPolicy } from '@taorl/rollout';
import { rolloutAndGrade, samplesOf } from '@taorl/rollout';
import type { EvalMetrics } from '../report/metrics.js';
import { ProgressBar } from '../report/progress.js';
import { rolloutOptionsOf } from '../session/rollout-options.js';
import type { Session } from '../session/session.js';
import { deriveSeed } from '../util/seeds.js';

/** The label of the greedy evaluation written beside the sampled one labelled `label`. */
export const greedyLabel = (label: string) => `${label} (greedy)`;

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
 * Accuracy is Avg@K and passAtK Pass@K (the unbiased estimator), both scored by @taorl/eval's `scoreBenchmark`.
 */
export async function evaluate(
  session: Session,
  problems: readonly Problem[],
  options: EvaluateOptions,
): Promise<EvalMetrics> {
  const { config } = session;
  const policy = options.policy ?? session.rolloutPolicy;
  const greedy = options.greedy ?? config.eval.greedy;
  // An explicit greedy pass takes one sample per problem: more would all be the same.
  const k = options.greedy === true ? 1 : config.eval.samples;
  const batchSize = options.batchSize ?? 64;
  const started = performance.now();
  const samples = samplesOf(problems, k);
  const bar =
    options.quiet === true
      ? null
      : new ProgressBar({ label: `eval ${options.label}`, total: samples.length });
  const rolloutOptions = rolloutOptionsOf(config, greedy);
  const starts = Array.from({ length: Math.ceil(samples.length / batchSize) }, (_, i) => i * batchSize);
  const gradedChunks: Trajectory[][] = [];
  const evaluateChunk = async (start: number): Promise<Trajectory[]> => {
    const chunk = samples.slice(start, start + batchSize);
    const { trajectories } = await rolloutAndGrade(policy, session, chunk, {
      ...rolloutOptions,
      seed: deriveSeed(config.seed, 'eval', start),
    });
    bar?.tick(chunk.length);
    return trajectories;
  };
  // Chunks are independent (each has its own seed), so a policy that takes concurrent calls (the worker pool,
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
  const scores =
    graded.length === 0
      ? null
      : scoreBenchmark(
          graded.map((t) => ({ problemId: t.groupId, correct: t.correct })),
          options.label,
        );
  const stats = rolloutStats(graded);
  const decisionPoints = decisionPointStats(graded, null);
  const breakdown = taskBreakdown(graded, new Map(problems.map((problem) => [problem.id, problem])));
  const result: EvalMetrics = {
    phase: 'eval',
    step: options.step,
    label: options.label,
    problems: problems.length,
    accuracy: scores?.avgAtK ?? 0,
    passAtK: scores?.passAtK[k] ?? 0,
    toolCallsPerTrajectory: stats.toolCallsPerTrajectory,
    toolSuccessRate: stats.toolSuccessRate,
    allFailedCorrect: stats.allFailedCorrect,
    correctWithToolError: stats.correctWithToolError,
    unexecutedCorrect: stats.unexecutedCorrect,
    wastedCallsPerTrajectory: stats.wastedCallsPerTrajectory,
    decisionPoints: decisionPoints.count,
    ...(decisionPoints.count === 0 ? {} : { decisionPointEntropy: decisionPoints.meanEntropy }),
    responseTokens: stats.responseTokens,
    seconds: (performance.now() - started) / 1000,
    greedy,
    ...breakdown,
  };
  bar?.finish(`accuracy ${(100 * result.accuracy).toFixed(1)}%`);
  return result;
}
