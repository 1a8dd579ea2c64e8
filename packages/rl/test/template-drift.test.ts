import { type ChatMessage, ChatTemplate, ResponseBuilder, type Trajectory } from '@taorl/data';
import { loadHfTokenizer } from '@taorl/data/node';
import { templateToolTurns } from '@taorl/rollout';
import { hermesFormat } from '@taorl/sandbox';
import { describe, expect, it } from 'vitest';
import { QWEN3_TOKENIZER } from '../../model/test/support/qwen3-folder.js';
import type { Problem } from '../src/problem.js';
import { checkTemplateDrift } from '../src/template-drift.js';

// The remote-mode step's template check (remote.templateCheck) with the real Qwen3 tokenizer and template: a
// trajectory in the template layout passes, one whose tool turn was inserted inline (as a server-side or
// hand-written tool environment might) is counted and logged with its position and both token strings.

describe('checkTemplateDrift', () => {
  it('counts the drifted share of the sample and logs the first drift', async () => {
    const tokenizer = await loadHfTokenizer(QWEN3_TOKENIZER);
    const template = ChatTemplate.fromTokenizerConfig(tokenizer.config);
    const turns = templateToolTurns(template, tokenizer, hermesFormat);
    const promptMessages: ChatMessage[] = [{ role: 'user', content: 'What is 17 * 23?' }];
    const promptIds = tokenizer.encode(
      template.render(promptMessages, { tools: turns.tools, addGenerationPrompt: true }),
    );
    const call =
      '<tool_call>\n{"name": "code_interpreter", "arguments": {"code": "print(17 * 23)"}}\n</tool_call>';
    const trajectory = (observation: Int32Array, groupId: string): Trajectory => {
      const builder = new ResponseBuilder();
      const policy = (ids: Int32Array) =>
        builder.appendPolicy(ids, new Float32Array(ids.length).fill(-0.1), new Float32Array(ids.length));
      policy(tokenizer.encode(`${call}<|im_end|>`));
      builder.appendObservation(observation, { status: 'ok', code: 'print(17 * 23)', output: '391' });
      policy(tokenizer.encode('\\boxed{391}<|im_end|>'));
      return { groupId, promptIds, ...builder.build(), reward: 1, correct: true, truncated: false, text: '' };
    };
    const good = trajectory(turns.encode('391'), 'p');
    const inline = trajectory(
      tokenizer.encodeUntrusted(
        hermesFormat.render({
          status: 'ok',
          exitCode: 0,
          signal: null,
          stdout: '391\n',
          stderr: '',
          stdoutTruncated: false,
          stderrTruncated: false,
          durationMs: 1,
        }),
      ),
      'p',
    );
    const problems = new Map<string, Problem>([['p', { id: 'p', promptIds, promptMessages, gold: '391' }]]);
    const logged: string[] = [];
    const count = { checked: 0, drifted: 0 };
    const check = { turns, sampleSize: 2, log: (message: string) => logged.push(message) };
    checkTemplateDrift(check, [good, inline, good, inline], problems, tokenizer, count);
    // The sample spreads over the batch: trajectories 0 and 2 (both good), then a batch of the inline one.
    expect(count).toEqual({ checked: 2, drifted: 0 });
    checkTemplateDrift(check, [inline, good], problems, tokenizer, count);
    expect(count).toEqual({ checked: 4, drifted: 1 });
    expect(logged).toHaveLength(1);
    // Both start with a line break; then the inline layout spells "<tool_response>" inside the turn where the
    // template closes it and opens a user turn.
    const at = promptIds.length + good.toolCalls[0]!.startToken + 1;
    expect(logged[0]).toMatch(
      new RegExp(
        `^template drift in a trajectory of problem p: position ${at} \\(tool turn 0\\): trained 27 "<", the template renders 151644 "<\\|im_start\\|>"$`,
      ),
    );
  });
});
