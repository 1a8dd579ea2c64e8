import { Template } from '@huggingface/jinja';
import type { HfTokenizerConfig } from '../tokenizer/hf';
import { EMBEDDED_CHAT_TEMPLATE, EMBEDDED_STOP_STRINGS } from './embedded-template';
import type { ChatMessage, ToolSchema } from './types';

export interface RenderOptions {
  tools?: ToolSchema[];
  /** Append the header that opens the assistant's turn (for prompting a generation). Default false. */
  addGenerationPrompt?: boolean;
  /** Extra template variables, e.g. { enable_thinking: false } for Qwen3. */
  variables?: Record<string, unknown>;
}

export interface ChatTemplateOptions {
  /** How errors name the template, e.g. 'the chat_template of tokenizer_config.json'. Default 'the chat template'. */
  name?: string;
  bosToken?: string;
  eosToken?: string;
  /**
   * The texts at which a generation stops, kept in the generated text: the end-of-turn marker and any tool-call
   * stop string the template's tool format uses. Default [eosToken], else ["<|im_end|>"].
   */
  stopStrings?: readonly string[];
}

function tokenText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { content?: unknown }).content === 'string'
  ) {
    return (value as { content: string }).content;
  }
  return undefined;
}

/** A Jinja chat template (the Hugging Face `chat_template` convention) rendered with @huggingface/jinja. */
export class ChatTemplate {
  readonly source: string;
  readonly name: string;
  readonly stopStrings: readonly string[];
  readonly #template: Template;
  readonly #bosToken: string;
  readonly #eosToken: string;

  constructor(source: string, options: ChatTemplateOptions = {}) {
    this.source = source;
    this.name = options.name ?? 'the chat template';
    this.#template = new Template(source);
    this.#bosToken = options.bosToken ?? '';
    this.#eosToken = options.eosToken ?? '';
    this.stopStrings = options.stopStrings ?? [options.eosToken || '<|im_end|>'];
  }

  /** The model's own template from tokenizer_config.json (the "default" entry when it lists several). */
  static fromTokenizerConfig(config: HfTokenizerConfig, name = 'default'): ChatTemplate {
    const raw = config.chat_template;
    const source = Array.isArray(raw) ? raw.find((entry) => entry.name === name)?.template : raw;
    if (typeof source !== 'string' || source === '') {
      const names = Array.isArray(raw) ? ` (it has: ${raw.map((entry) => entry.name).join(', ')})` : '';
      throw new Error(`tokenizer_config.json has no chat_template named "${name}"${names}`);
    }
    const eosToken = tokenText(config.eos_token);
    return new ChatTemplate(source, {
      name: `the chat_template "${name}" of tokenizer_config.json`,
      bosToken: tokenText(config.bos_token) ?? '',
      eosToken: eosToken ?? '',
    });
  }

  /** The built-in template of the embedded model (EMBEDDED_CHAT_TEMPLATE). */
  static embedded(): ChatTemplate {
    return new ChatTemplate(EMBEDDED_CHAT_TEMPLATE, {
      name: 'the embedded chat template',
      eosToken: '<|im_end|>',
      stopStrings: EMBEDDED_STOP_STRINGS,
    });
  }

  render(messages: readonly ChatMessage[], options: RenderOptions = {}): string {
    return this.#template.render({
      ...options.variables,
      messages,
      tools: options.tools,
      add_generation_prompt: options.addGenerationPrompt ?? false,
      bos_token: this.#bosToken,
      eos_token: this.#eosToken,
    });
  }
}
