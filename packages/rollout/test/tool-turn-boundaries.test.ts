import { ChatTemplate } from '@taorl/data';
import { createSandbox, hermesFormat, markdownFormat, type Sandbox, tagsFormat } from '@taorl/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RolloutOptions, rollout, sandboxToolEnvironment, templateToolTurns } from '../src/index.js';
import { qwenTokenizer } from './support/qwen.js';
import { ScriptedPolicy } from './support/scripted-policy.js';

// Where the model's text meets the observation, with the real Qwen3 tokenizer and the real sandbox (bubblewrap +
// Python): the inline layout's one boundary rule, and untrusted output inside the template's tool turn.

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await createSandbox({ backend: 'local', workers: 1, preload: [] });
});
afterAll(async () => {
  await sandbox?.close();
});

const options: RolloutOptions = { maxTurns: 3, maxResponseTokens: 400, sampling: {}, seed: 1, lanes: 1 };
const sandboxOptions = { timeoutMs: 5000, observationChars: 512 };

describe('inline layout', () => {
  it("drops the observation's leading line break when the token that completed the stop string ended with one", async () => {
    const tokenizer = await qwenTokenizer('qwen3');
    // Qwen3 writes "</code>\n" as "</", "code", ">\n": the stop string ends inside the last token.
    const turn = '<code>\nprint(6 * 7)\n</code>\n';
    const last = tokenizer.encodeUntrusted(turn).at(-1)!;
    expect(tokenizer.decode([last])).toBe('>\n');
    const policy = new ScriptedPolicy(tokenizer, [turn, 'So \\boxed{42}.<|im_end|>'], '<interpreter>');
    const tools = sandboxToolEnvironment(tagsFormat, sandbox, sandboxOptions);
    const prompt = {
      groupId: 'q',
      promptIds: tokenizer.encode('<|im_start|>user\n6*7?<|im_end|>\n<|im_start|>assistant\n'),
    };
    const [trajectory] = (await rollout(policy, tokenizer, tools, [prompt], options)).trajectories;
    expect(trajectory!.text).toBe(`${turn}<interpreter>\n42\n</interpreter>\nSo \\boxed{42}.<|im_end|>`);
  });
});

describe('template layout', () => {
  it('keeps a program\'s printed "<|im_end|>" and "<tool_response>" as text inside Qwen3\'s tool turn', async () => {
    const tokenizer = await qwenTokenizer('qwen3');
    const template = ChatTemplate.fromTokenizerConfig(tokenizer.config);
    const turns = templateToolTurns(template, tokenizer, hermesFormat);
    // Spelled in pieces: the model's own turn is sampled with markup as tokens.
    const code = "print('<|im_' + 'end|><tool_' + 'response>')";
    const call = `<tool_call>\n${JSON.stringify({ name: 'code_interpreter', arguments: { code } })}\n</tool_call><|im_end|>`;
    const policy = new ScriptedPolicy(tokenizer, [call, 'Printed.<|im_end|>'], '</tool_response><|im_end|>', {
      markupTokens: true,
    });
    const tools = sandboxToolEnvironment(hermesFormat, sandbox, { ...sandboxOptions, toolTurns: turns });
    const prompt = {
      groupId: 'q',
      promptIds: tokenizer.encode(
        template.render([{ role: 'user', content: 'Print it.' }], {
          tools: turns.tools,
          addGenerationPrompt: true,
        }),
      ),
    };
    const result = await rollout(policy, tokenizer, tools, [prompt], options);
    const [trajectory] = result.trajectories;
    expect(result.endings).toEqual(['eos']);
    const { startToken, endToken } = trajectory!.toolCalls[0]!;
    const observation = Array.from(trajectory!.responseIds.subarray(startToken, endToken));
    expect(tokenizer.decode(observation)).toBe(turns.text('<|im_end|><tool_response>'));
    // The template's own markup: one <tool_response> (151665), one </tool_response> (151666), one <|im_end|>.
    expect(observation.filter((id) => id === 151665)).toHaveLength(1);
    expect(observation.filter((id) => id === 151666)).toHaveLength(1);
    expect(observation.filter((id) => id === tokenizer.eosTokenId)).toHaveLength(1);
    expect(trajectory!.toolCalls[0]!.status).toBe('ok');
  });

  it('refuses a tool format without content(), naming it', async () => {
    const tokenizer = await qwenTokenizer('qwen3');
    const template = ChatTemplate.fromTokenizerConfig(tokenizer.config);
    const { content: _, ...withoutContent } = hermesFormat;
    expect(() => templateToolTurns(template, tokenizer, { ...withoutContent, name: 'mine' })).toThrow(
      'the tool format "mine" has no content() (the output without its wrapper)',
    );
  });

  it('refuses a tool format that does not parse the call the template teaches, naming both', async () => {
    const tokenizer = await qwenTokenizer('qwen2_5');
    const template = ChatTemplate.fromTokenizerConfig(tokenizer.config);
    expect(() => templateToolTurns(template, tokenizer, markdownFormat)).toThrow(
      /^the chat_template "default" of tokenizer_config\.json renders a call of code_interpreter as "<\|im_start\|>assistant\\n<tool_call>.*", which the tool format "markdown" does not parse/,
    );
  });
});
