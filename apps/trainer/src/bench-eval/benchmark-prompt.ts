import type { ChatMessage, ChatTemplate, Tokenizer } from '@taorl/data';
import { getToolFormat } from '@taorl/sandbox';
import { BOXED_ANSWER_RULE, toolSystemPrompt } from '../task/tool-instructions.js';

/**
 * The system prompt for a tool format: `systemPrompt` when given, else the format's instructions and where the
 * final answer goes (a choice or code problem's user message says what form its answer takes,
 * bench-eval/benchmark-items.ts); a format without instructions needs `systemPrompt`.
 */
export function benchmarkSystemPrompt(toolFormat: string, systemPrompt?: string): string {
  if (systemPrompt !== undefined) return systemPrompt;
  return toolSystemPrompt(getToolFormat(toolFormat), BOXED_ANSWER_RULE);
}

/** A benchmark problem as a chat prompt (system: tool instructions; user: the problem), rendered to token ids. */
export function benchmarkPromptIds(
  userMessage: string,
  parts: { tokenizer: Tokenizer; template: ChatTemplate },
  systemPrompt: string,
): Int32Array {
  const messages: ChatMessage[] = [
    { role: 'system', content: systemPrompt },
    { role: 'user', content: userMessage },
  ];
  return parts.tokenizer.encode(parts.template.render(messages, { addGenerationPrompt: true }));
}
