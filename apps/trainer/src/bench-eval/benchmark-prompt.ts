import type { ChatMessage, ChatTemplate, TemplateToolTurns, Tokenizer } from '@taorl/data';
import { getToolFormat } from '@taorl/sandbox';
import { BOXED_ANSWER_RULE, toolSystemPrompt } from '../task/tool-instructions.js';

/**
 * The system prompt for a tool format: `systemPrompt` when given, else the format's instructions and where the
 * final answer goes (a choice or code problem's user message says what form its answer takes,
 * bench-eval/benchmark-items.ts); a format without instructions needs `systemPrompt`. In the template layout
 * (`templateTools`) the template writes the tool section itself, so only where the final answer goes.
 */
export function benchmarkSystemPrompt(
  toolFormat: string,
  systemPrompt?: string,
  templateTools = false,
): string {
  if (systemPrompt !== undefined) return systemPrompt;
  if (templateTools) return BOXED_ANSWER_RULE;
  return toolSystemPrompt(getToolFormat(toolFormat), BOXED_ANSWER_RULE);
}

/**
 * A benchmark problem as a chat prompt (system: tool instructions; user: the problem), rendered to token ids; in
 * the template layout (`parts.toolTurns`) with the tools given to the template, as the RL prompts are.
 */
export function benchmarkPromptIds(
  userMessage: string,
  parts: { tokenizer: Tokenizer; template: ChatTemplate; toolTurns?: TemplateToolTurns | null },
  systemPrompt: string,
): Int32Array {
  const messages: ChatMessage[] = [
    { role: 'system', content: systemPrompt },
    { role: 'user', content: userMessage },
  ];
  const tools = parts.toolTurns?.tools;
  return parts.tokenizer.encode(
    parts.template.render(messages, { addGenerationPrompt: true, ...(tools === undefined ? {} : { tools }) }),
  );
}
