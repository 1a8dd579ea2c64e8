/** Tool use of one trajectory: its calls, the calls that did not run cleanly, and the non-blank lines of code. */
export interface ToolUse {
  readonly toolCalls: number;
  readonly toolFailures: number;
  readonly codeLines: number;
}

/**
 * One tool call as a sampler recorded it: the code the policy wrote, as its tool format parsed it, and how the
 * execution ended (@taorl/sandbox's status; a @taorl/data `ToolCall` fits).
 */
export interface RecordedToolCall {
  readonly status: string;
  readonly code: string;
}

/**
 * Tool use from the calls a sampler recorded: every call counts, a call whose status is not `ok` failed, and code
 * lines are the non-blank lines of the calls' code. Whatever tool format wrote the calls, they are seen as they
 * ran; this is how taorl's own trajectories are counted.
 */
export function toolUseOf(calls: readonly RecordedToolCall[]): ToolUse {
  return {
    toolCalls: calls.length,
    toolFailures: calls.filter((call) => call.status !== 'ok').length,
    codeLines: calls.reduce((sum, call) => sum + nonBlankLines(call.code), 0),
  };
}

/** Markdown fences are matched whole with their tag, so an output block's closing fence never opens a code block. */
const fencedBlock = /```(\w*)[^\S\n]*\n([\s\S]*?)```/g;
const codeTags = new Set(['', 'py', 'python']);
/** Code of a tool call in the hermes and tags formats. */
const callPatterns: readonly [RegExp, (body: string) => string][] = [
  [/<tool_call>([\s\S]*?)<\/tool_call>/g, hermesCode],
  [/<code>([\s\S]*?)<\/code>/g, (body) => body],
];
const outputPatterns = [
  /<tool_response>([\s\S]*?)<\/tool_response>/g,
  /<interpreter>([\s\S]*?)<\/interpreter>/g,
];
const failureMarker = /Traceback \(most recent call last\)|\b[A-Z][a-zA-Z]*Error\b|timed out/;

/**
 * Tool use guessed from a response's text, for responses of another framework that recorded no calls: counts tool
 * calls (```python blocks, <tool_call> JSON, <code> tags) and their non-blank code lines, and tool outputs
 * (```output, <tool_response>, <interpreter>) that show a Python error or a timeout as failed calls: the trajectory
 * formats of docs/explanation/sandbox.md, as in SimpleTIR, Open-AgentRL and ToRA. Any other format counts as no
 * calls; where the calls were recorded, `toolUseOf` counts them whatever their format.
 */
export function countToolUse(response: string): ToolUse {
  const codes: string[] = [];
  const outputs: string[] = [];
  for (const [, tag, body] of response.matchAll(fencedBlock)) {
    if (codeTags.has(tag!)) codes.push(body!);
    else if (tag === 'output') outputs.push(body!);
  }
  for (const [pattern, codeOf] of callPatterns) {
    for (const match of response.matchAll(pattern)) codes.push(codeOf(match[1]!));
  }
  for (const pattern of outputPatterns)
    for (const match of response.matchAll(pattern)) outputs.push(match[1]!);
  return {
    toolCalls: codes.length,
    toolFailures: outputs.filter((output) => failureMarker.test(output)).length,
    codeLines: codes.reduce((sum, code) => sum + nonBlankLines(code), 0),
  };
}

function nonBlankLines(code: string): number {
  return code.split('\n').filter((line) => line.trim() !== '').length;
}

/** The code argument of a hermes tool call (arguments an object or a JSON string); the raw body otherwise. */
function hermesCode(body: string): string {
  try {
    const call = JSON.parse(body) as { arguments?: unknown };
    const args = typeof call.arguments === 'string' ? JSON.parse(call.arguments) : call.arguments;
    const code = (args as { code?: unknown } | undefined)?.code;
    return typeof code === 'string' ? code : body;
  } catch {
    return body;
  }
}
