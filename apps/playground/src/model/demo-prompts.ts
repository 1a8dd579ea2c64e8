import { ByteTokenizer, type ChatMessage, ChatTemplate, type Tokenizer } from '@taorl/data';
import { paddedVocabTokenizer } from '@taorl/model';
import { z } from 'zod';

/** A held-out problem of the demo's task as the asset command writes it (prompts.json): the chat and its answer. */
export interface DemoPrompt {
  id: string;
  messages: ChatMessage[];
  answer: string;
}

/**
 * The tiny model's tokenizer and chat template, as the trainer's session builds them for it (the byte tokenizer,
 * widened to the checkpoint's vocabulary, and the embedded template).
 */
export function demoTokenizer(vocabSize: number): { tokenizer: Tokenizer; template: ChatTemplate } {
  return {
    tokenizer: paddedVocabTokenizer(new ByteTokenizer(), vocabSize),
    template: ChatTemplate.embedded(),
  };
}

/** A prompt's token ids: its chat rendered with the generation prompt, encoded. */
export function promptIds(prompt: DemoPrompt, tokenizer: Tokenizer, template: ChatTemplate): Int32Array {
  return tokenizer.encode(template.render(prompt.messages, { addGenerationPrompt: true }));
}

const demoPromptsSchema = z
  .array(
    z.object({
      id: z.string(),
      messages: z.array(
        z.object({ role: z.enum(['system', 'user', 'assistant', 'tool']), content: z.string() }),
      ),
      answer: z.string(),
    }),
  )
  .min(1);

/** prompts.json of the asset folder, checked: a non-empty list of { id, messages, answer }; errors name the URL. */
export function parseDemoPrompts(json: unknown, url: string): DemoPrompt[] {
  const parsed = demoPromptsSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`${url}: ${issue?.path.join('.') || '(root)'}: ${issue?.message}`);
  }
  return parsed.data;
}
