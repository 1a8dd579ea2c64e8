import type { CodeProblem } from '@taorl/eval';

/** The user message of a code problem: the statement, the starter code, and where the final program goes. */
export function codeUserMessage(problem: Omit<CodeProblem, 'id'>): string {
  const form =
    problem.task.kind === 'functional'
      ? `Complete the method ${problem.task.method} of class Solution in the starter code.`
      : 'The program reads the input from standard input and prints the answer to standard output.';
  const starter =
    problem.starterCode.trim() === ''
      ? ''
      : `\n\nStarter code:\n\`\`\`python\n${problem.starterCode}\n\`\`\``;
  return (
    `${problem.question}${starter}\n\n${form} Write your final, complete Python 3 program as the last ` +
    '```python code block of your answer.'
  );
}
