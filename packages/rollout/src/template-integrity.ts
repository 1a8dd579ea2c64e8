import type { ChatMessage, TemplateToolTurns, Tokenizer, Trajectory } from '@taorl/data';

/** The first position where a trajectory's trained ids leave the chat template's rendering of its messages. */
export interface TemplateDrift {
  /** Index into promptIds followed by responseIds. */
  position: number;
  /** Which part of the conversation the position lies in: 'prompt' or 'tool turn k' (0-based). */
  part: string;
  /** The trained id and its text; null past the end of the trajectory. */
  trained: { id: number; text: string } | null;
  /** The template's id and its text; null past the end of the rendering. */
  template: { id: number; text: string } | null;
}

/** A template drift in words: position, part and both token strings. */
export function describeDrift(drift: TemplateDrift): string {
  const token = (side: TemplateDrift['trained']) =>
    side === null ? 'nothing' : `${side.id} ${JSON.stringify(side.text)}`;
  return (
    `position ${drift.position} (${drift.part}): trained ${token(drift.trained)}, ` +
    `the template renders ${token(drift.template)}`
  );
}

/**
 * Compares a trajectory's trained ids with its chat template's rendering of its messages (the prompt's messages,
 * then per tool call the model's turn and a tool message holding the call's output), returning the first
 * differing position or null.
 *
 * The rule for templates that rewrite turns (the continuous-token rule, as verl's): the model's own tokens are
 * never re-rendered. Its turns are compared as sampled, and everything else is the template's: the prompt, i.e. the
 * messages rendered with the generation prompt, and each tool turn, i.e. what the template renders after the
 * end-of-turn marker closing the model's turn once the tool message and the next generation prompt follow, the
 * conversation so far holding the model's turns as their decoded text. So the empty think block Qwen3 writes into a
 * final turn (or, with enable_thinking false, into every generation prompt), and the reasoning it drops from turns
 * before the last user message, change nothing the model was trained on: they would change what the model saw after
 * it sampled. The tool's output is untrusted text in the rendering too; a trajectory cut by its response budget is
 * compared up to its end.
 */
export function checkTemplateIntegrity(
  trajectory: Trajectory,
  promptMessages: readonly ChatMessage[],
  turns: TemplateToolTurns,
  tokenizer: Tokenizer,
): TemplateDrift | null {
  const { template, tools, variables } = turns;
  const render = (messages: readonly ChatMessage[]) =>
    template.render(messages, { tools, variables, addGenerationPrompt: true });
  const endOfTurn = tokenizer.specialTokenText(tokenizer.eosTokenId) ?? '';
  const expected: number[] = [];
  const parts: Array<{ from: number; part: string }> = [];
  const push = (ids: ArrayLike<number>, part: string | null) => {
    if (part !== null) parts.push({ from: expected.length, part });
    for (let i = 0; i < ids.length; i++) expected.push(ids[i]!);
  };
  const messages: ChatMessage[] = [...promptMessages];
  let rendered = render(messages);
  push(tokenizer.encode(rendered), 'prompt');
  const { responseIds } = trajectory;
  let cursor = 0;
  trajectory.toolCalls.forEach((call, k) => {
    const modelIds = responseIds.subarray(cursor, call.startToken);
    push(modelIds, 'the model');
    const text = tokenizer.decode(modelIds);
    const content = text.endsWith(endOfTurn) ? text.slice(0, -endOfTurn.length) : text;
    const before = occurrences(rendered + content + endOfTurn, endOfTurn);
    messages.push({ role: 'assistant', content }, { role: 'tool', content: call.output });
    rendered = render(messages);
    const turn = rendered.slice(afterOccurrence(rendered, endOfTurn, before));
    // Marking the first occurrence of the output untrusted gives the ids of the real one: output free of markup
    // encodes the same either way, and output holding markup is not likely to occur in the template's own text.
    const at = call.output === '' ? -1 : turn.indexOf(call.output);
    push(
      at < 0
        ? tokenizer.encode(turn)
        : tokenizer.encodeParts([
            { text: turn.slice(0, at) },
            { text: call.output, untrusted: true },
            { text: turn.slice(at + call.output.length) },
          ]),
      `tool turn ${k}`,
    );
    cursor = call.endToken;
  });
  push(responseIds.subarray(cursor), 'the model');
  const trained = [...trajectory.promptIds, ...responseIds];
  const length = trajectory.truncated ? trained.length : Math.max(trained.length, expected.length);
  for (let i = 0; i < length; i++) {
    if (trained[i] === expected[i]) continue;
    const side = (id: number | undefined) => (id === undefined ? null : { id, text: tokenizer.decode([id]) });
    const part = parts.filter((entry) => entry.from <= i).at(-1)?.part ?? 'prompt';
    return { position: i, part, trained: side(trained[i]), template: side(expected[i]) };
  }
  return null;
}

function occurrences(text: string, marker: string): number {
  if (marker === '') return 0;
  return text.split(marker).length - 1;
}

/** The offset just past the `count`-th occurrence of `marker` (0 when count is 0). */
function afterOccurrence(text: string, marker: string, count: number): number {
  let at = -marker.length;
  for (let i = 0; i < count; i++) {
    at = text.indexOf(marker, at + marker.length);
    if (at < 0) return text.length;
  }
  return count === 0 ? 0 : at + marker.length;
}
