import type { Tokenizer, Trajectory } from '@taorl/data';
import { type Gold, type GradeResult, grade } from '@taorl/eval';
import type { GraderPool } from '@taorl/eval/node';
import type { RolloutPolicy } from '../model/policy.js';
import {
  type RolloutOptions,
  type RolloutPrompt,
  type RolloutTiming,
  rollout,
} from '../rollout/rollout-engine.js';
import type { ToolEnvironment } from '../rollout/tool-environment.js';
import { finalAssistantText, type Problem } from './rewards.js';

/** One sample to roll out and grade: its prompt, the group it belongs to, and the gold answer it is graded on. */
export interface SampleToGrade extends RolloutPrompt {
  gold: Gold;
  /**
   * Grade the whole response instead of the final assistant segment: a program is judged from the last code the
   * policy wrote, which the markdown tool format also ran as a tool call, so it sits before the last observation.
   */
  wholeResponse?: boolean;
}

/** `k` samples of each problem, problem after problem; a sample's group is its problem's id. */
export function samplesOf(
  problems: readonly Pick<Problem, 'id' | 'promptIds' | 'gold'>[],
  k: number,
): SampleToGrade[] {
  return problems.flatMap((problem) =>
    Array.from({ length: k }, () => ({
      groupId: problem.id,
      promptIds: problem.promptIds,
      gold: problem.gold,
    })),
  );
}

/** Grades responses against golds: @taorl/eval's `grade` in this thread, or a `GraderPool` (threads, time limit). */
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
  const { trajectories, timing } = await rollout(policy, parts.tokenizer, parts.tools, samples, options);
  const grading = performance.now();
  const decode = (ids: Int32Array) => parts.tokenizer.decode(ids);
  const grades = await grader.gradeMany(
    trajectories.map((trajectory, i) => ({
      response: samples[i]!.wholeResponse === true ? trajectory.text : finalAssistantText(trajectory, decode),
      gold: samples[i]!.gold,
    })),
  );
  return {
    trajectories: trajectories.map((trajectory, i) => {
      const { correct } = grades[i]!;
      return { ...trajectory, correct, reward: correct ? 1 : 0 };
    }),
    grades,
    timing,
    gradingMs: performance.now() - grading,
  };
}
