import type { ChatMessage } from '@taorl/data';
import type { ToolFormat } from '@taorl/sandbox';

/** Where the final answer goes, as @taorl/eval's grade() reads it: the last \boxed{} of the response. */
export const BOXED_ANSWER_RULE =
  'Reason step by step, use the tool when it helps, and put the final answer in \\boxed{}.';

/**
 * The format's own instructions (how to call the tool, where the output comes back), then `answerRule` when
 * given; a format without instructions throws, naming it and what to do instead.
 */
export function toolSystemPrompt(format: ToolFormat, answerRule?: string): string {
  if (format.instructions === undefined) {
    throw new Error(
      `tool format ${JSON.stringify(format.name)} has no instructions text: write the system message yourself, ` +
        'or register the format with one (registerToolFormat({ ..., instructions }))',
    );
  }
  return answerRule === undefined ? format.instructions : `${format.instructions}\n\n${answerRule}`;
}

/**
 * `messages` with `system` in front. A leading system message keeps its text, followed by a blank line and
 * `system`, in one system message (as Qwen's chat template appends its tools section to the user's system
 * message); a system message anywhere else throws, since the prompt would then hold two.
 */
export function withSystemPrompt(messages: readonly ChatMessage[], system: string): ChatMessage[] {
  const [first, ...rest] = messages;
  if (rest.some((message) => message.role === 'system')) {
    throw new Error(
      'a system message that is not the first message: tool.instructions adds its text to a leading system ' +
        'message only; move it first, or set tool.instructions: none',
    );
  }
  if (first?.role === 'system') return [{ ...first, content: `${first.content}\n\n${system}` }, ...rest];
  return [{ role: 'system', content: system }, ...messages];
}
