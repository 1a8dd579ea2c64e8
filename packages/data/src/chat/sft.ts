import { DataError } from '../errors';
import { HfTokenizer } from '../tokenizer/hf';
import type { Tokenizer } from '../tokenizer/types';
import { ChatTemplate, type RenderOptions } from './template';
import type { ChatMessage, Conversation } from './types';

/** Token ids of a rendered conversation with lossMask 1 exactly on what the assistant generated. */
export interface SftExample {
  inputIds: Int32Array;
  lossMask: Uint8Array;
}

export interface SftOptions {
  /** Default: the HfTokenizer's own template, else the embedded template. */
  template?: ChatTemplate;
  /** Extra template variables, e.g. { enable_thinking: false }. */
  variables?: Record<string, unknown>;
}

function commonPrefixLength(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

function defaultTemplate(tokenizer: Tokenizer): ChatTemplate {
  return tokenizer instanceof HfTokenizer
    ? ChatTemplate.fromTokenizerConfig(tokenizer.config)
    : ChatTemplate.embedded();
}

function firstStop(full: string, from: number, stopStrings: readonly string[]): number {
  let best = -1;
  for (const stop of stopStrings) {
    const at = full.indexOf(stop, from);
    if (at >= 0 && (best < 0 || at + stop.length < best)) best = at + stop.length;
  }
  return best;
}

/**
 * Where the assistant's text starts in `full`, given the generation prompt rendered for the messages before it.
 * Normally that prompt is a prefix of `full` and the text starts right after it. When the template renders the
 * header differently in a generation prompt (Qwen3 with enable_thinking false appends an empty think block that
 * non-final turns lack), the common prefix can run into the assistant's first characters ("<t" of
 * "<tool_call>" against "<think>"), so it is cut back to the last line break inside it: chat headers end with one.
 */
function assistantStart(generationPrompt: string, historyLength: number, full: string): number {
  const common = commonPrefixLength(generationPrompt, full);
  if (common === generationPrompt.length) return common;
  const lineEnd = full.lastIndexOf('\n', common - 1);
  return Math.max(lineEnd + 1, historyLength);
}

/**
 * The text spans [start, end) of the full rendering that the assistant generated. An assistant message starts
 * where the full text departs from the generation prompt rendered for the messages before it (so the turn
 * header is prompt, not target) and ends just after the first stop string, as a rollout would stop there.
 * Templates that rewrite earlier turns (Qwen3 drops the empty think block of non-final turns) are handled
 * because only common prefixes are compared, never exact renderings of partial conversations.
 */
function assistantSpans(
  messages: readonly ChatMessage[],
  render: (messages: readonly ChatMessage[], addGenerationPrompt: boolean) => string,
  full: string,
  stopStrings: readonly string[],
): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  messages.forEach((message, i) => {
    if (message.role !== 'assistant') return;
    const before = messages.slice(0, i);
    const history = i === 0 ? '' : render(before, false);
    const start = i === 0 ? 0 : assistantStart(render(before, true), history.length, full);
    if (commonPrefixLength(history, full) < history.length) {
      throw new DataError(
        'the chat template renders the conversation before this assistant message differently from the full ' +
          'conversation, so the assistant tokens cannot be located',
        { field: `messages[${i}]` },
      );
    }
    const end = firstStop(full, start, stopStrings);
    if (end < 0) {
      throw new DataError(
        `the rendered assistant text never reaches a stop string (${stopStrings.join(', ')})`,
        {
          field: `messages[${i}]`,
        },
      );
    }
    spans.push([start, end]);
  });
  return spans;
}

/**
 * Tokenizes a conversation for SFT: the full rendering is cut at the assistant spans and each piece is encoded
 * on its own, so the tokens are those a rollout would produce (prompt encoded, assistant tokens generated after
 * it), and lossMask is 1 only on assistant tokens (its stop string included, the turn header excluded).
 */
export function toSftExample(
  conversation: Conversation,
  tokenizer: Tokenizer,
  options: SftOptions = {},
): SftExample {
  const template = options.template ?? defaultTemplate(tokenizer);
  const base: RenderOptions = { variables: options.variables };
  if (conversation.tools) base.tools = conversation.tools;
  const render = (messages: readonly ChatMessage[], addGenerationPrompt: boolean) =>
    template.render(messages, { ...base, addGenerationPrompt });
  const full = render(conversation.messages, false);
  const spans = assistantSpans(conversation.messages, render, full, template.stopStrings);
  const ids: Int32Array[] = [];
  const masks: number[] = [];
  let cursor = 0;
  const push = (text: string, mask: number) => {
    if (text === '') return;
    ids.push(tokenizer.encode(text));
    masks.push(mask);
  };
  for (const [start, end] of spans) {
    push(full.slice(cursor, start), 0);
    push(full.slice(start, end), 1);
    cursor = end;
  }
  push(full.slice(cursor), 0);
  const total = ids.reduce((sum, piece) => sum + piece.length, 0);
  const inputIds = new Int32Array(total);
  const lossMask = new Uint8Array(total);
  let offset = 0;
  ids.forEach((piece, k) => {
    inputIds.set(piece, offset);
    lossMask.fill(masks[k] as number, offset, offset + piece.length);
    offset += piece.length;
  });
  return { inputIds, lossMask };
}
