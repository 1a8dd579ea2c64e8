import type { Tokenizer, Trajectory } from '@taorl/data';
import {
  type CodeJudgeMode,
  type CodeRunner,
  type CodeTask,
  type Gold,
  type GradeResult,
  grade,
} from '@taorl/eval';
import type { GraderPool } from '@taorl/eval/node';
import { judgeResponse } from './code-reward.js';
import { finalAssistantText } from './final-text.js';
import type { RolloutPolicy } from './policy.js';
import type { RolloutEnding } from './rollout-endings.js';
import { type RolloutOptions, type RolloutPrompt, type RolloutTiming, rollout } from './rollout-engine.js';
import type { ToolEnvironment } from './tool-environment.js';

/**
 * One sample to roll out and grade: its prompt, the group it belongs to, and what it is graded on: the gold answer,
 * or, for a program, the tests of `code`.
 */
export interface SampleToGrade extends RolloutPrompt {
  gold: Gold;
  /**
   * Judge the last program of the whole response against these tests instead of grading an answer: the program
   * is the last code the policy wrote, which the markdown tool format also ran as a tool call, so it sits before
   * the last observation, outside the final assistant segment.
   */
  code?: CodeTask;
}

/** A problem to sample: its id (the group of its samples), its rendered prompt and its gold answer. */
export interface ProblemToSample {
  id: string;
  promptIds: Int32Array;
  gold: Gold;
  /** A code problem: its program is judged against these tests (SampleToGrade.code). */
  code?: CodeTask;
}

/** `k` samples of each problem, problem after problem; a sample's group is its problem's id. */
export function samplesOf(problems: readonly ProblemToSample[], k: number): SampleToGrade[] {
  return problems.flatMap((problem) =>
    Array.from({ length: k }, () => ({
      groupId: problem.id,
      promptIds: problem.promptIds,
      gold: problem.gold,
      ...(problem.code === undefined ? {} : { code: problem.code }),
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
  /** Judges the programs of samples with `code` (the session's sandbox). */
  sandbox?: CodeRunner;
  /**
   * How programs are judged (@taorl/eval's `CodeJudgeMode`): default `faithful`, the reward; `livecodebench` only
   * for benchmark scores comparable with LiveCodeBench's.
   */
  codeJudgeMode?: CodeJudgeMode;
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
 * Rolls out every sample (tool calls in the sandbox) and grades its final assistant segment against its gold, or
 * judges its last program against its tests: the "samples -> rollout -> grade" of the RL step, held-out
 * evaluation, curation and benchmark evaluation.
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
  const answers = samples.flatMap((sample, i) => (sample.code === undefined ? [i] : []));
  const answerGrades = await grader.gradeMany(
    answers.map((i) => ({ response: finalAssistantText(trajectories[i]!, decode), gold: samples[i]!.gold })),
  );
  const grades: GradeResult[] = new Array(samples.length);
  answers.forEach((i, position) => {
    grades[i] = answerGrades[position]!;
  });
  await Promise.all(
    samples.map(async (sample, i) => {
      if (sample.code === undefined) return;
      if (parts.sandbox === undefined)
        throw new Error(`problem ${sample.groupId}: judging programs needs a sandbox`);
      grades[i] = await judgeResponse(parts.sandbox, trajectories[i]!.text, sample.code, {
        mode: parts.codeJudgeMode ?? 'faithful',
      });
    }),
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
