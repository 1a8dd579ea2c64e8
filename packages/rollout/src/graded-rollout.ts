import type { Tokenizer, Trajectory } from '@taorl/data';
import { type Gold, type GradeResult, grade } from '@taorl/eval';
import type { GraderPool } from '@taorl/eval/node';
import { finalAssistantText } from './final-text.js';
import type { RolloutPolicy } from './policy.js';
import type { RolloutEnding } from './rollout-endings.js';
import { type RolloutOptions, type RolloutPrompt, type RolloutTiming, rollout } from './rollout-engine.js';
import type { ToolEnvironment } from './tool-environment.js';

/** One sample to roll out and grade: its prompt, the group it belongs to, and the gold answer it is graded on. */
export interface SampleToGrade extends RolloutPrompt {
  gold: Gold;
}

/** A problem to sample: its id (the group of its samples), its rendered prompt and its gold answer. */
export interface ProblemToSample {
  id: string;
  promptIds: Int32Array;
  gold: Gold;
}

/** `k` samples of each problem, problem after problem; a sample's group is its problem's id. */
export function samplesOf(problems: readonly ProblemToSample[], k: number): SampleToGrade[] {
  return problems.flatMap((problem) =>
    Array.from({ length: k }, () => ({
      groupId: problem.id,
      promptIds: problem.promptIds,
      gold: problem.gold,
    })),
  );
}

/**
 * Grades responses against golds: `inThreadGrader` (@taorl/eval's `grade` in this thread) or @taorl/eval/node's
 * `GraderPool` (worker threads, a time limit per answer). Only its type comes from @taorl/eval/node, so this entry
 * stays portable.
 */
export type Grader = Pick<GraderPool, 'gradeMany'>;

export const inThreadGrader: Grader = {
  gradeMany: async (tasks) => tasks.map((task) => grade(task.response, task.gold, task.options)),
};

/** What the rollout and tools need besides the policy. */
export interface RolloutParts {
  tokenizer: Tokenizer;
  tools: ToolEnvironment;
}

export interface GradedRollout {
  /** One per sample, in sample order, graded: reward 1 if correct else 0 (DECISION in docs/trainer.md). */
  trajectories: Trajectory[];
  /** The grader's verdict on each trajectory, with the answer it extracted. */
  grades: GradeResult[];
  /** Why each trajectory ended, in sample order. */
  endings: RolloutEnding[];
  /** Per trajectory, the tool calls that did not parse. */
  unparseableCalls: number[];
  timing: RolloutTiming;
  /** Wall time of the grading. */
  gradingMs: number;
}

/**
 * Rolls out every sample (tool calls in the sandbox) and grades its final assistant segment against its gold:
 * the "samples -> rollout -> grade" of the RL step, held-out evaluation, curation and benchmark evaluation.
 */
export async function rolloutAndGrade(
  policy: RolloutPolicy,
  parts: RolloutParts,
  samples: readonly SampleToGrade[],
  options: RolloutOptions,
  grader: Grader = inThreadGrader,
): Promise<GradedRollout> {
  const { trajectories, endings, unparseableCalls, timing } = await rollout(
    policy,
    parts.tokenizer,
    parts.tools,
    samples,
    options,
  );
  const grading = performance.now();
  const decode = (ids: Int32Array) => parts.tokenizer.decode(ids);
  const grades = await grader.gradeMany(
    trajectories.map((trajectory, i) => ({
      response: finalAssistantText(trajectory, decode),
      gold: samples[i]!.gold,
    })),
  );
  return {
    trajectories: trajectories.map((trajectory, i) => {
      const { correct } = grades[i]!;
      return { ...trajectory, correct, reward: correct ? 1 : 0 };
    }),
    grades,
    endings,
    unparseableCalls,
    timing,
    gradingMs: performance.now() - grading,
  };
}
