/** Tool use of one trajectory, counted from its text when the sampler did not record it. */
export interface ToolUse {
  readonly toolCalls: number;
  readonly toolFailures: number;
  readonly codeLines: number;
}

const codeBlock = /```(?:python|py)\s*\n([\s\S]*?)```/g;
const outputBlock = /```output\s*\n([\s\S]*?)```/g;
const failureMarker = /Traceback \(most recent call last\)|\b[A-Z][a-zA-Z]*Error\b|timed out/;

/**
 * Counts ```python blocks as tool calls (their non-blank lines as code lines) and ```output blocks that show a
 * Python error or a timeout as failed calls: the markdown protocol of SimpleTIR / ToRA trajectories.
 */
export function countToolUse(response: string): ToolUse {
  let toolCalls = 0;
  let codeLines = 0;
  for (const match of response.matchAll(codeBlock)) {
    toolCalls += 1;
    codeLines += match[1]!.split('\n').filter((line) => line.trim() !== '').length;
  }
  let toolFailures = 0;
  for (const match of response.matchAll(outputBlock)) if (failureMarker.test(match[1]!)) toolFailures += 1;
  return { toolCalls, toolFailures, codeLines };
}
