import { type GradeReason, type GradeResult, gradeChoice } from '@taorl/eval';
import type { Grader } from '@taorl/rollout';
import type { BenchmarkItem } from './benchmark-items.js';

/** The items a grader grades: programs are judged by rolloutAndGrade itself (SampleToGrade.code). */
export type AnsweredItem = Exclude<BenchmarkItem, { kind: 'code' }>;

const reasonOf = (correct: boolean, answered: boolean): GradeReason =>
  correct ? 'equivalent' : answered ? 'not_equivalent' : 'no_answer';

/**
 * A grader for a batch of benchmark items, the i-th task being a response to the i-th item: math answers through
 * `mathGrader` (in one call, a grader pool's threads and time limit included), letters by `gradeChoice`.
 */
export function benchmarkGrader(items: readonly AnsweredItem[], mathGrader: Grader): Grader {
  return {
    gradeMany: async (tasks) => {
      if (tasks.length !== items.length) {
        throw new Error(`benchmarkGrader: ${tasks.length} responses for ${items.length} items`);
      }
      const math = items.flatMap((item, index) => (item.kind === 'math' ? [index] : []));
      const mathGrades = await mathGrader.gradeMany(math.map((index) => tasks[index]!));
      const grades = items.map((item, index): GradeResult | null => {
        if (item.kind === 'math') return null;
        const graded = gradeChoice(tasks[index]!.response, item.choice);
        return {
          correct: graded.correct,
          extracted: graded.chosen,
          gold: item.choice.goldLetter,
          reason: reasonOf(graded.correct, graded.chosen !== null),
        };
      });
      math.forEach((index, position) => {
        grades[index] = mathGrades[position]!;
      });
      return grades as GradeResult[];
    },
  };
}
