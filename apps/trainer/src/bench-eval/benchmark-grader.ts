import {
  type CodeRunner,
  extractProgram,
  type GradeReason,
  type GradeResult,
  gradeChoice,
  judgeProgram,
} from '@taorl/eval';
import type { Grader } from '../rl/graded-rollout.js';
import type { BenchmarkItem } from './benchmark-items.js';

/** The sandbox failed while judging a program: the sample is not scored (resume the evaluation to retry it). */
export class JudgeUnavailableError extends Error {
  override readonly name = 'JudgeUnavailableError';
}

const reasonOf = (correct: boolean, answered: boolean): GradeReason =>
  correct ? 'equivalent' : answered ? 'not_equivalent' : 'no_answer';

/**
 * A grader for a batch of benchmark items, the i-th task being a response to the i-th item: math answers through
 * `mathGrader` (in one call), letters by `gradeChoice`, programs by `judgeProgram` in the sandbox (`extracted`
 * holds the program, `gold` the verdict). A program the sandbox could not judge stops the evaluation instead of
 * counting as wrong.
 */
export function benchmarkGrader(
  items: readonly BenchmarkItem[],
  mathGrader: Grader,
  runner?: CodeRunner,
): Grader {
  return {
    gradeMany: async (tasks) => {
      if (tasks.length !== items.length)
        throw new Error(`benchmarkGrader: ${tasks.length} responses for ${items.length} items`);
      const math = items.flatMap((item, index) => (item.kind === 'math' ? [index] : []));
      const mathGrades = await mathGrader.gradeMany(math.map((index) => tasks[index]!));
      const grades: GradeResult[] = new Array(items.length);
      math.forEach((index, position) => {
        grades[index] = mathGrades[position]!;
      });
      await Promise.all(
        items.map(async (item, index) => {
          const response = tasks[index]!.response;
          if (item.kind === 'choice') {
            const graded = gradeChoice(response, item.choice);
            grades[index] = {
              correct: graded.correct,
              extracted: graded.chosen,
              gold: item.choice.goldLetter,
              reason: reasonOf(graded.correct, graded.chosen !== null),
            };
          } else if (item.kind === 'code') {
            grades[index] = await judged(item, response, runner);
          }
        }),
      );
      return grades;
    },
  };
}

async function judged(
  item: Extract<BenchmarkItem, { kind: 'code' }>,
  response: string,
  runner: CodeRunner | undefined,
): Promise<GradeResult> {
  if (runner === undefined) throw new Error(`${item.benchmark}: judging programs needs a sandbox`);
  const program = extractProgram(response);
  if (program === null) return { correct: false, extracted: null, gold: 'no program', reason: 'no_answer' };
  const judgement = await judgeProgram(runner, program, item.task);
  if (judgement.verdict === 'infra_error') {
    throw new JudgeUnavailableError(
      `${item.benchmark} problem ${item.id}: the sandbox failed while judging (${judgement.failure?.message ?? ''}); ` +
        'the finished batches are kept in the results file: rerun to resume',
    );
  }
  const verdict = judgement.passed
    ? `passed ${judgement.testsTotal} tests`
    : `${judgement.verdict} on test ${judgement.testsPassed + 1} of ${judgement.testsTotal}`;
  return {
    correct: judgement.passed,
    extracted: program,
    gold: verdict,
    reason: reasonOf(judgement.passed, true),
  };
}
