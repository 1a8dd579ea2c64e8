/**
 * The program a response ends with: the last fenced code block marked python (```python, ```py, ```python3) or
 * unmarked, as LiveCodeBench's extraction takes the last fenced block. Tool outputs (```output) are never a
 * program. With the markdown tool format every python block is also a tool call: the last one is still the answer.
 */
export function extractProgram(response: string): string | null {
  const fence = /```([A-Za-z0-9_+-]*)[ \t]*\n([\s\S]*?)\n?```/g;
  let program: string | null = null;
  for (const match of response.matchAll(fence)) {
    const language = match[1]!.toLowerCase();
    if (language === '' || language === 'python' || language === 'py' || language === 'python3')
      program = match[2]!;
  }
  return program === null || program.trim() === '' ? null : program;
}
