import type { ChoiceProblem, CodeTask } from '@taorl/eval';

/**
 * One problem of any benchmark, as evaluation asks it and grades it: a math answer against golds, a letter
 * against the gold option, or a program against test cases.
 */
export type BenchmarkItem = { readonly benchmark: string; readonly id: string } & (
  | { readonly kind: 'math'; readonly question: string; readonly gold: readonly string[] }
  | { readonly kind: 'choice'; readonly choice: ChoiceProblem }
  | {
      readonly kind: 'code';
      readonly question: string;
      readonly starterCode: string;
      readonly task: CodeTask;
    }
);

/** The user message of an item: the question and what form the answer must take. */
export function userMessageOf(item: BenchmarkItem, formatChoice: (problem: ChoiceProblem) => string): string {
  if (item.kind === 'math') return `${item.question}\n\nPut your final answer in \\boxed{}.`;
  if (item.kind === 'choice') return formatChoice(item.choice);
  const form =
    item.task.kind === 'functional'
      ? `Complete the method ${item.task.method} of class Solution in the starter code.`
      : 'The program reads the input from standard input and prints the answer to standard output.';
  const starter =
    item.starterCode.trim() === '' ? '' : `\n\nStarter code:\n\`\`\`python\n${item.starterCode}\n\`\`\``;
  return (
    `${item.question}${starter}\n\n${form} Write your final, complete Python 3 program as the last \`\`\`python ` +
    'code block of your answer.'
  );
}
