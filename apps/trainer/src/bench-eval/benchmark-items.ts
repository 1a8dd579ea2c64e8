import type { ChoiceProblem, CodeProblem } from '@taorl/eval';
import { codeUserMessage } from '../task/code-prompt.js';

/**
 * One problem of any benchmark, as evaluation asks it and grades it: a math answer against golds, a letter
 * against the gold option, or a program against test cases.
 */
export type BenchmarkItem = { readonly benchmark: string; readonly id: string } & (
  | { readonly kind: 'math'; readonly question: string; readonly gold: readonly string[] }
  | { readonly kind: 'choice'; readonly choice: ChoiceProblem }
  | ({ readonly kind: 'code' } & Omit<CodeProblem, 'id'>)
);

/** The user message of an item: the question and what form the answer must take. */
export function userMessageOf(item: BenchmarkItem, formatChoice: (problem: ChoiceProblem) => string): string {
  if (item.kind === 'math') return `${item.question}\n\nPut your final answer in \\boxed{}.`;
  if (item.kind === 'choice') return formatChoice(item.choice);
  return codeUserMessage(item);
}
