import type { ChoiceProblem } from './choice-problem';
import { type ChoiceRule, extractChoice } from './extract-choice';

export interface ChoiceGrade {
  readonly correct: boolean;
  /** The letter read from the response, or null when it chose none or hedged between several. */
  readonly chosen: string | null;
  readonly rule: ChoiceRule | null;
}

/** Grades a response against a problem's gold letter; the options' texts count as naming their letters. */
export function gradeChoice(response: string, problem: ChoiceProblem): ChoiceGrade {
  const extracted = extractChoice(response, { letters: problem.letters, optionTexts: problem.options });
  return {
    correct: extracted?.letter === problem.goldLetter,
    chosen: extracted?.letter ?? null,
    rule: extracted?.rule ?? null,
  };
}
