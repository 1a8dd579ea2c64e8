import {
  type CodeRunner,
  type CodeTask,
  extractProgram,
  type GradeResult,
  type JudgeOptions,
  judgeProgram,
} from '@taorl/eval';

/** The sandbox failed while judging a program: the sample cannot be scored, and must not count as wrong. */
export class JudgeUnavailableError extends Error {
  override readonly name = 'JudgeUnavailableError';
}

/**
 * The code-correctness reward's verdict on a response: the last python block it wrote (`extracted`), judged
 * against the task's tests in the sandbox (@taorl/eval judgeProgram: LiveCodeBench's rules, stopping at the first
 * failing test) in `options.mode` (default `faithful`, the reward); `gold` holds the verdict. A response without a
 * program is `no_answer`.
 */
export async function judgeResponse(
  runner: CodeRunner,
  response: string,
  task: CodeTask,
  options: JudgeOptions = {},
): Promise<GradeResult> {
  const program = extractProgram(response);
  if (program === null) return { correct: false, extracted: null, gold: 'no program', reason: 'no_answer' };
  const judgement = await judgeProgram(runner, program, task, options);
  if (judgement.verdict === 'infra_error') {
    throw new JudgeUnavailableError(
      `problem ${task.id}: the sandbox failed while judging a program (${judgement.failure?.message ?? ''})`,
    );
  }
  const verdict = judgement.passed
    ? `passed ${judgement.testsTotal} tests`
    : `${judgement.verdict} on test ${judgement.testsPassed + 1} of ${judgement.testsTotal}`;
  return {
    correct: judgement.passed,
    extracted: program,
    gold: verdict,
    reason: judgement.passed ? 'equivalent' : 'not_equivalent',
  };
}
