import { readFileSync } from 'node:fs';
import { type ChatMessage, ChatTemplate } from '@taorl/data';
import { hermesFormat } from '@taorl/sandbox';
import { describe, expect, it } from 'vitest';
import {
  checkTemplateIntegrity,
  describeDrift,
  rollout,
  sandboxToolEnvironment,
  templateToolTurns,
} from '../src/index.js';
import { type QwenName, qwenTokenizer } from './support/qwen.js';
import { ReplaySandbox } from './support/replay-sandbox.js';
import { ScriptedPolicy } from './support/scripted-policy.js';

// The template integrity check on rollouts of the Jinja2 fixtures (chat-templates/README.md) with the real Qwen
// tokenizers: template tool turns pass, Qwen3's rewrites of the model's own turns are not drift (the
// continuous-token rule), and the inline layout or a prompt rendered without the tools is reported at its first
// differing token with both token strings.

interface Conversation {
  name: string;
  messages: ChatMessage[];
  templateKwargs: Record<string, unknown>;
  promptText: string;
  modelTurns: string[];
  text: string;
}

const conversations = (name: QwenName): Conversation[] =>
  JSON.parse(readFileSync(new URL(`./chat-templates/jinja2-${name}.json`, import.meta.url), 'utf8'))
    .conversations;
const find = (name: QwenName, conversation: string) =>
  conversations(name).find((c) => c.name === conversation)!;

async function rollOut(name: QwenName, conversation: Conversation, layout: 'template' | 'inline') {
  const tokenizer = await qwenTokenizer(name);
  const template = ChatTemplate.fromTokenizerConfig(tokenizer.config);
  const turns = templateToolTurns(template, tokenizer, hermesFormat, {
    variables: conversation.templateKwargs,
  });
  const outputs = conversation.messages.filter((m) => m.role === 'tool').map((m) => m.content);
  const tools = sandboxToolEnvironment(hermesFormat, new ReplaySandbox(outputs), {
    timeoutMs: 1000,
    observationChars: 100_000,
    ...(layout === 'template' ? { toolTurns: turns } : {}),
  });
  // Inline, the model stops at "</tool_call>" and goes on in the same turn: its turns lose their end-of-turn token.
  const modelTurns =
    layout === 'template'
      ? conversation.modelTurns
      : conversation.modelTurns.map((turn, k, all) =>
          k < all.length - 1 ? turn.replace(/<\|im_end\|>$/, '') : turn,
        );
  const policy = new ScriptedPolicy(tokenizer, modelTurns, '</tool_response>', {
    markupTokens: true,
    maxSequenceLength: 40_000,
  });
  const prompt = { groupId: 'q', promptIds: tokenizer.encode(conversation.promptText) };
  const result = await rollout(policy, tokenizer, tools, [prompt], {
    maxTurns: 5,
    maxResponseTokens: 30_000,
    sampling: {},
    seed: 1,
    lanes: 1,
  });
  const promptMessages = conversation.messages.slice(
    0,
    conversation.messages.findIndex((m) => m.role === 'assistant'),
  );
  return { trajectory: result.trajectories[0]!, promptMessages, turns, tokenizer };
}

describe('checkTemplateIntegrity', () => {
  for (const name of ['qwen2_5', 'qwen3'] as const) {
    it.each(conversations(name).map((c) => c.name))(
      `${name}: finds no drift in the template layout's rollout of %s`,
      async (conversation) => {
        const { trajectory, promptMessages, turns, tokenizer } = await rollOut(
          name,
          find(name, conversation),
          'template',
        );
        expect(checkTemplateIntegrity(trajectory, promptMessages, turns, tokenizer)).toBeNull();
      },
    );
  }

  it("qwen3: the template's rewrites of the model's own turns are not drift (continuous tokens)", async () => {
    for (const conversation of ['thinking, two calls', 'empty output, thinking off']) {
      const { trajectory, promptMessages, turns, tokenizer } = await rollOut(
        'qwen3',
        find('qwen3', conversation),
        'template',
      );
      // Rendering the finished conversation rewrites earlier turns (drops their empty think blocks, or, thinking off,
      // the block of the generation prompt the model saw), so it is not what the model was trained on ...
      const full = Array.from(tokenizer.encode(find('qwen3', conversation).text));
      expect([...trajectory.promptIds, ...trajectory.responseIds]).not.toEqual(full.slice(0, -1));
      // ... and the check, which never re-renders the model's tokens, reports nothing.
      expect(checkTemplateIntegrity(trajectory, promptMessages, turns, tokenizer)).toBeNull();
    }
  });

  it("reports the inline layout's first tool turn with both token strings", async () => {
    const { trajectory, promptMessages, turns, tokenizer } = await rollOut(
      'qwen3',
      find('qwen3', 'one call'),
      'inline',
    );
    const drift = checkTemplateIntegrity(trajectory, promptMessages, turns, tokenizer)!;
    expect(drift.part).toBe('tool turn 0');
    // Inline, the model's turn never ends: after "</tool_call>" and a line break, the observation goes on with
    // "<tool_response>" as text inside the turn where the template opens a new turn.
    expect(drift.position).toBe(trajectory.promptIds.length + trajectory.toolCalls[0]!.startToken + 1);
    expect(drift.template).toEqual({ id: 151644, text: '<|im_start|>' });
    expect(drift.trained!.text).toBe('<');
    expect(describeDrift(drift)).toBe(
      `position ${drift.position} (tool turn 0): trained ${drift.trained!.id} ${JSON.stringify(drift.trained!.text)}, the template renders 151644 "<|im_start|>"`,
    );
  });

  it('reports a prompt rendered without the tools at its first token', async () => {
    const conversation = find('qwen2_5', 'one call');
    const { trajectory, promptMessages, turns, tokenizer } = await rollOut(
      'qwen2_5',
      conversation,
      'template',
    );
    const template = ChatTemplate.fromTokenizerConfig(tokenizer.config);
    const bare = tokenizer.encode(template.render(promptMessages, { addGenerationPrompt: true }));
    const drift = checkTemplateIntegrity(
      { ...trajectory, promptIds: bare },
      promptMessages,
      turns,
      tokenizer,
    )!;
    expect(drift.part).toBe('prompt');
    expect(describeDrift(drift)).toMatch(
      /^position \d+ \(prompt\): trained \d+ ".*", the template renders \d+ ".*"$/,
    );
  });
});
