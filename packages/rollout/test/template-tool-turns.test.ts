import { readFileSync } from 'node:fs';
import {
  type ChatMessage,
  ChatTemplate,
  type HfTokenizer,
  TemplateToolTurns,
  type ToolSchema,
} from '@taorl/data';
import { hermesFormat } from '@taorl/sandbox';
import { describe, expect, it } from 'vitest';
import {
  type RolloutOptions,
  type RolloutResult,
  rollout,
  sandboxToolEnvironment,
  type ToolEnvironment,
  templateToolTurns,
} from '../src/index.js';
import { type QwenName, qwenTokenizer } from './support/qwen.js';
import { ReplaySandbox } from './support/replay-sandbox.js';
import { ScriptedPolicy } from './support/scripted-policy.js';

// The rollout's ids against references that are not taorl's code (chat-templates/README.md): Jinja2 renderings of
// Qwen2.5's and Qwen3's own templates and transformers' renderings of Qwen3 conversations, encoded by the real
// tokenizers. The model's turns are scripted (markup sampled as the tokens it is, as a Qwen model writes it).

interface Jinja2Conversation {
  name: string;
  messages: ChatMessage[];
  templateKwargs: Record<string, unknown>;
  promptText: string;
  modelTurns: string[];
  toolTurns: string[];
  text: string;
}

interface TransformersConversation {
  name: string;
  messages: ChatMessage[];
  tools: ToolSchema[];
  template_kwargs: Record<string, unknown>;
  text: string;
}

const fixture = <T>(file: string): { conversations: T[] } =>
  JSON.parse(readFileSync(new URL(`./chat-templates/${file}`, import.meta.url), 'utf8'));

const options: RolloutOptions = { maxTurns: 5, maxResponseTokens: 30_000, sampling: {}, seed: 1, lanes: 1 };
const EOS = '<|im_end|>';

const toolOutputs = (messages: readonly ChatMessage[]) =>
  messages.filter((message) => message.role === 'tool').map((message) => message.content);

async function rollOut(
  tokenizer: HfTokenizer,
  promptText: string,
  modelTurns: readonly string[],
  tools: ToolEnvironment,
): Promise<RolloutResult> {
  const policy = new ScriptedPolicy(tokenizer, modelTurns, '<tool_response>', {
    markupTokens: true,
    maxSequenceLength: 40_000,
  });
  return rollout(
    policy,
    tokenizer,
    tools,
    [{ groupId: 'q', promptIds: tokenizer.encode(promptText) }],
    options,
  );
}

const allIds = (result: RolloutResult) => {
  const [trajectory] = result.trajectories;
  return [...trajectory!.promptIds, ...trajectory!.responseIds];
};

/** The first position where two id lists differ, with the text of both tokens, for a readable failure. */
function firstDifference(tokenizer: HfTokenizer, actual: number[], expected: number[]): string | null {
  const n = Math.max(actual.length, expected.length);
  for (let i = 0; i < n; i++) {
    if (actual[i] !== expected[i]) {
      const text = (id: number | undefined) =>
        id === undefined ? 'nothing' : JSON.stringify(tokenizer.decode([id]));
      return `position ${i}: rollout ${actual[i]} ${text(actual[i])}, reference ${expected[i]} ${text(expected[i])}`;
    }
  }
  return null;
}

describe.each<[QwenName, string]>([
  ['qwen2_5', 'jinja2-qwen2_5.json'],
  ['qwen3', 'jinja2-qwen3.json'],
])('%s: the rollout holds the ids of the Jinja2 rendering (%s)', (name, file) => {
  for (const conversation of fixture<Jinja2Conversation>(file).conversations) {
    it(conversation.name, async () => {
      const tokenizer = await qwenTokenizer(name);
      const template = ChatTemplate.fromTokenizerConfig(tokenizer.config);
      const turns = templateToolTurns(template, tokenizer, hermesFormat, {
        variables: conversation.templateKwargs,
      });
      const sandbox = new ReplaySandbox(toolOutputs(conversation.messages));
      const tools = sandboxToolEnvironment(hermesFormat, sandbox, {
        timeoutMs: 1000,
        observationChars: 100_000,
        toolTurns: turns,
      });
      const result = await rollOut(tokenizer, conversation.promptText, conversation.modelTurns, tools);
      const { toolTurns, modelTurns, promptText } = conversation;
      const reference = promptText + modelTurns.map((turn, k) => turn + (toolTurns[k] ?? '')).join('');
      const expected = Array.from(tokenizer.encode(reference));
      expect(firstDifference(tokenizer, allIds(result), expected)).toBeNull();
      expect(result.endings).toEqual(['eos']);
      const [trajectory] = result.trajectories;
      // Each tool turn is lossMask 0 and holds exactly the template's tool turn (as the tokenizer normalizes it:
      // NFC composes "e\u0301"); the model's end of turn before it is trained (lossMask 1).
      expect(
        trajectory!.toolCalls.map((call) =>
          tokenizer.decode(trajectory!.responseIds.subarray(call.startToken, call.endToken)),
        ),
      ).toEqual(toolTurns.map((turn) => turn.normalize('NFC')));
      for (const call of trajectory!.toolCalls) {
        expect(trajectory!.responseIds[call.startToken - 1]).toBe(tokenizer.eosTokenId);
        expect(trajectory!.lossMask[call.startToken - 1]).toBe(1);
        expect(
          Array.from(trajectory!.lossMask.subarray(call.startToken, call.endToken)).every((m) => m === 0),
        ).toBe(true);
      }
      // The calls the model wrote are the ones that ran.
      const codes = conversation.messages.flatMap((message) =>
        (message.tool_calls ?? []).map((call) => (call.function.arguments as { code: string }).code),
      );
      expect(sandbox.codes).toEqual(codes);
      // taorl's template engine renders the prompt and the conversation as Jinja2 does.
      const firstAssistant = conversation.messages.findIndex((message) => message.role === 'assistant');
      expect(
        template.render(conversation.messages.slice(0, firstAssistant), {
          tools: turns.tools,
          variables: conversation.templateKwargs,
          addGenerationPrompt: true,
        }),
      ).toBe(promptText);
      expect(
        template.render(conversation.messages, {
          tools: turns.tools,
          variables: conversation.templateKwargs,
        }),
      ).toBe(conversation.text);
    });
  }
});

describe('qwen3: the rollout holds the ids of transformers 5.18 apply_chat_template (transformers-qwen3.json)', () => {
  const { conversations } = fixture<TransformersConversation>('transformers-qwen3.json');
  for (const conversation of conversations) {
    it(conversation.name, async () => {
      const tokenizer = await qwenTokenizer('qwen3');
      const template = ChatTemplate.fromTokenizerConfig(tokenizer.config);
      const variables = conversation.template_kwargs;
      const render = (messages: ChatMessage[], addGenerationPrompt: boolean) =>
        template.render(messages, { tools: conversation.tools, variables, addGenerationPrompt });
      expect(render(conversation.messages, false)).toBe(conversation.text);
      if (variables.enable_thinking === false) return; // its generation prompt differs from its full rendering
      // With thinking on, the generation prompt is the full rendering's turn header, so the model writing the turns
      // as rendered makes the whole rollout equal the rendering (up to the line break after the last turn).
      const firstAssistant = conversation.messages.findIndex((message) => message.role === 'assistant');
      const promptText = render(conversation.messages.slice(0, firstAssistant), true);
      const modelTurns: string[] = [];
      let at = promptText.length;
      while (at < conversation.text.length) {
        const end = conversation.text.indexOf(EOS, at) + EOS.length;
        modelTurns.push(conversation.text.slice(at, end));
        const next = conversation.text.indexOf('<|im_start|>assistant\n', end);
        at = next < 0 ? conversation.text.length : next + '<|im_start|>assistant\n'.length;
      }
      const turns = new TemplateToolTurns(template, tokenizer, { tools: conversation.tools, variables });
      const outputs = toolOutputs(conversation.messages);
      const tools: ToolEnvironment = {
        stopStrings: [],
        toolTurns: turns,
        parse: (segment) => {
          const json = /<tool_call>\n([\s\S]*?)\n<\/tool_call>/.exec(segment)?.[1];
          return json === undefined
            ? null
            : (JSON.parse(json) as { arguments: { code: string } }).arguments.code;
        },
        execute: async () => ({ status: 'ok', observation: outputs.shift()!, durationMs: 0 }),
      };
      const result = await rollOut(tokenizer, promptText, modelTurns, tools);
      const expected = Array.from(tokenizer.encode(conversation.text.replace(/\n$/, '')));
      expect(firstDifference(tokenizer, allIds(result), expected)).toBeNull();
      // "<tool_response>" is Qwen3's added token 151665, not text pieces.
      const calls = toolOutputs(conversation.messages).length;
      expect(allIds(result).filter((id) => id === 151665)).toHaveLength(calls);
    });
  }
});
