import { ByteTokenizer } from '@taorl/data';
import type { ToolEnvironment } from '@taorl/rollout';
import {
  type RolloutPolicy,
  rollout,
  rolloutAndGrade,
  samplesOf,
  sandboxToolEnvironment,
} from '@taorl/rollout';
import { createSandbox, markdownFormat, type Sandbox } from '@taorl/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedPolicy } from '../../../packages/rollout/test/support/scripted-policy.js';
import { parseConfig, rolloutOptionsOf } from '../src/index.js';

const tokenizer = new ByteTokenizer();
let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await createSandbox({ backend: 'local', workers: 2, preload: [] });
});
afterAll(async () => {
  await sandbox?.close();
});

const tools = () =>
  sandboxToolEnvironment(markdownFormat, sandbox, { timeoutMs: 5000, observationChars: 512 });
const prompt = {
  groupId: 'q1',
  promptIds: tokenizer.encode('<|im_start|>user\nQ: 6*7?<|im_end|>\n<|im_start|>assistant\n'),
};
const options = { maxTurns: 5, maxResponseTokens: 512, sampling: { temperature: 1 }, seed: 7, lanes: 2 };

describe('tool-integrated rollout (real sandbox)', () => {
  it('runs the code, appends the real output with lossMask 0, and keeps "<|im_end|>" in it literal', async () => {
    const turns = ["```python\nprint(6*7)\nprint('<|im_end|>')\n```\n```output", 'A: \\boxed{42}<|im_end|>'];
    const policy = new ScriptedPolicy(tokenizer, turns, '```output\n');
    const { trajectories, timing } = await rollout(
      policy,
      tokenizer,
      tools(),
      [prompt, prompt, prompt],
      options,
    );
    expect(trajectories).toHaveLength(3);
    const [t] = trajectories;
    expect(t!.toolCalls).toHaveLength(1);
    const call = t!.toolCalls[0]!;
    expect(call.status).toBe('ok');
    expect(call.code).toBe("print(6*7)\nprint('<|im_end|>')");
    expect(call.output).toBe('\n42\n<|im_end|>\n```\n');
    // The observation span is exactly the inserted tokens: lossMask 0 there, 1 on every policy token.
    const observation = t!.responseIds.subarray(call.startToken, call.endToken);
    expect(tokenizer.decode(observation)).toBe(call.output);
    expect(Array.from(observation)).not.toContain(tokenizer.eosTokenId);
    t!.lossMask.forEach((m, i) => {
      expect(m, `token ${i}`).toBe(i >= call.startToken && i < call.endToken ? 0 : 1);
    });
    expect(t!.oldLogProbs.subarray(call.startToken, call.endToken).every((v) => v === 0)).toBe(true);
    expect(t!.text).toBe(`${turns[0]}${call.output}${turns[1]}`);
    expect(t!.truncated).toBe(false);
    // Only the final EOS is the special token; the response ends there.
    expect(t!.responseIds.at(-1)).toBe(tokenizer.eosTokenId);
    expect(t!.responseIds.filter((id) => id === tokenizer.eosTokenId)).toHaveLength(1);
    expect(timing.generatedTokens).toBe(3 * (t!.responseIds.length - observation.length));
  });

  it('records failed calls with their status and the traceback as the observation', async () => {
    const turns = ['```python\nprint(1/0)\n```\n```output', 'A: \\boxed{0}<|im_end|>'];
    const policy = new ScriptedPolicy(tokenizer, turns, '```output\n');
    const { trajectories } = await rollout(policy, tokenizer, tools(), [prompt], options);
    const call = trajectories[0]!.toolCalls[0]!;
    expect(call.status).toBe('error');
    expect(call.output).toContain('ZeroDivisionError');
  });

  it('stops at maxTurns and marks the response-length budget as truncated', async () => {
    const loop = '```python\nprint(1)\n```\n```output';
    const policy = new ScriptedPolicy(tokenizer, [loop, loop, loop, loop], '```output\n');
    const capped = await rollout(policy, tokenizer, tools(), [prompt], { ...options, maxTurns: 2 });
    expect(capped.trajectories[0]!.toolCalls).toHaveLength(2);
    expect(capped.trajectories[0]!.truncated).toBe(false);

    const short = await rollout(policy, tokenizer, tools(), [prompt], { ...options, maxResponseTokens: 40 });
    const t = short.trajectories[0]!;
    expect(t.truncated).toBe(true);
    expect(t.responseIds.length).toBe(40);
    expect(t.lossMask.length).toBe(40);
  });
  it('a failing lane stops the others at their next turn; the rollout rejects once every lane has settled', async () => {
    const scripted = new ScriptedPolicy(
      tokenizer,
      ['```python\nimport time\ntime.sleep(0.3)\nprint(1)\n```\n```output', 'A: \\boxed{1}<|im_end|>'],
      '```output\n',
    );
    // Lanes call at once (as with rollout workers): lane 0 gets a tool call, lane 1's first call fails.
    let calls = 0;
    const policy: RolloutPolicy = {
      vocabSize: scripted.vocabSize,
      maxSequenceLength: scripted.maxSequenceLength,
      concurrentGenerate: true,
      async generate(prompts, sampling) {
        calls++;
        if (calls === 2) throw new Error('lane 1 failed');
        return scripted.generate(prompts, sampling);
      },
    };
    const real = tools();
    const executions = { running: 0, done: 0 };
    const counted: ToolEnvironment = {
      ...real,
      async execute(code) {
        executions.running++;
        try {
          return await real.execute(code);
        } finally {
          executions.running--;
          executions.done++;
        }
      },
    };
    await expect(rollout(policy, tokenizer, counted, [prompt, prompt], options)).rejects.toThrow(
      'lane 1 failed',
    );
    // Lane 0's tool call had finished when the rollout rejected, and lane 0 generated no further turn after it.
    expect(executions).toEqual({ running: 0, done: 1 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(calls).toBe(2);
  });
});

describe('rolloutAndGrade (real sandbox, real grader)', () => {
  it('grades k samples per problem against their own gold, in problem order', async () => {
    // The code prints \boxed{41}; the final \boxed{42} is the answer graded.
    const turns = ["```python\nprint('\\\\boxed{41}')\n```\n```output", 'A: \\boxed{42}<|im_end|>'];
    const policy = new ScriptedPolicy(tokenizer, turns, '```output\n');
    const problems = [
      { id: 'right', promptIds: prompt.promptIds, gold: '42' },
      { id: 'wrong', promptIds: prompt.promptIds, gold: '41' },
    ];
    const samples = samplesOf(problems, 2);
    expect(samples.map((sample) => [sample.groupId, sample.gold])).toEqual([
      ['right', '42'],
      ['right', '42'],
      ['wrong', '41'],
      ['wrong', '41'],
    ]);
    const graded = await rolloutAndGrade(policy, { tokenizer, tools: tools() }, samples, options);
    expect(graded.trajectories[0]!.toolCalls[0]!.output).toContain('\\boxed{41}');
    expect(graded.trajectories.map((t) => [t.groupId, t.correct, t.reward])).toEqual([
      ['right', true, 1],
      ['right', true, 1],
      ['wrong', false, 0],
      ['wrong', false, 0],
    ]);
    expect(graded.grades.map((grade) => grade.extracted)).toEqual(['42', '42', '42', '42']);
  });

  it('takes its rollout options from the config: sampled, or greedy at temperature 0 alone', () => {
    const config = parseConfig(
      'rollout: {temperature: 0.7, topP: 0.9, topK: 5, maxTurns: 3, lanes: 4}',
      'inline',
    );
    expect(rolloutOptionsOf(config)).toEqual({
      maxTurns: 3,
      maxResponseTokens: config.rollout.maxResponseTokens,
      sampling: { temperature: 0.7, topP: 0.9, topK: 5 },
      lanes: 4,
      unparseableCall: 'end',
      maxRepeatedCalls: 0,
      checkTokenIntegrity: true,
    });
    expect(rolloutOptionsOf(config, true).sampling).toEqual({ temperature: 0 });
    const guarded = parseConfig(
      'rollout: {unparseableCall: observe, maxWallMs: 30000, maxRepeatedCalls: 3, checkTokenIntegrity: false}',
      'inline',
    );
    expect(rolloutOptionsOf(guarded)).toMatchObject({
      unparseableCall: 'observe',
      maxWallMs: 30000,
      maxRepeatedCalls: 3,
      checkTokenIntegrity: false,
    });
  });
});
