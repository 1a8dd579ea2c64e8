import { ByteTokenizer } from '@taorl/data';
import { createSandbox, hermesFormat, type Sandbox } from '@taorl/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type GeneratedSequence,
  type RolloutOptions,
  type RolloutPolicy,
  rollout,
  sandboxToolEnvironment,
  type ToolEnvironment,
} from '../src/index.js';
import { ScriptedPolicy } from './support/scripted-policy.js';

// The engine's outcomes for calls that do not parse, loop or run long, and its errors on bad policies and tool
// environments, against the real sandbox (bubblewrap + Python) and the Hermes format. Every rollout here also runs
// checkTokenIntegrity on each trajectory (the engine's default).

const tokenizer = new ByteTokenizer();
let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await createSandbox({ backend: 'local', workers: 2, preload: [] });
});
afterAll(async () => {
  await sandbox?.close();
});

const tools = () => sandboxToolEnvironment(hermesFormat, sandbox, { timeoutMs: 5000, observationChars: 256 });
const prompt = (groupId: string) => ({
  groupId,
  promptIds: tokenizer.encode('<|im_start|>user\nQ: 6*7?<|im_end|>\n<|im_start|>assistant\n'),
});
const options: RolloutOptions = { maxTurns: 4, maxResponseTokens: 600, sampling: {}, seed: 3, lanes: 1 };
const call = (code: string) =>
  `<tool_call>${JSON.stringify({ name: 'code_interpreter', arguments: { code } })}</tool_call>`;
const malformed = '<tool_call>{"name": "code_interpreter", "arguments": {"code": print(1)}}</tool_call>';
const marker = '<tool_response>';

/** Scripted turns rolled out on the real sandbox, one prompt per group id given. */
const scripted = (turns: readonly string[], extra: Partial<RolloutOptions> = {}, groups = ['q']) =>
  rollout(new ScriptedPolicy(tokenizer, turns, marker), tokenizer, tools(), groups.map(prompt), {
    ...options,
    ...extra,
  });

describe('calls that do not parse', () => {
  const turns = [malformed, 'A: \\boxed{42}<|im_end|>'];

  it("'end' (the default) ends the trajectory as no_tool_call", async () => {
    const result = await scripted(turns);
    expect(result.endings).toEqual(['no_tool_call']);
    expect(result.unparseableCalls).toEqual([0]);
    expect(result.trajectories[0]!.toolCalls).toEqual([]);
    expect(result.trajectories[0]!.text).toBe(malformed);
  });

  it("'observe' answers with the format's parse error (lossMask 0, status error) and lets the model go on", async () => {
    const result = await scripted(turns, { unparseableCall: 'observe' });
    const [trajectory] = result.trajectories;
    expect(result.endings).toEqual(['eos']);
    expect(result.unparseableCalls).toEqual([1]);
    expect(trajectory!.toolCalls).toHaveLength(1);
    const [observed] = trajectory!.toolCalls;
    expect(observed!.status).toBe('error');
    expect(observed!.output).toContain('could not be parsed');
    expect(observed!.output).toContain('<tool_response>');
    const { startToken, endToken } = observed!;
    expect([...trajectory!.lossMask.subarray(startToken, endToken)].every((m) => m === 0)).toBe(true);
    expect(trajectory!.text.endsWith('A: \\boxed{42}<|im_end|>')).toBe(true);
  });

  it("'text' keeps the text and goes on generating (here the same turn again, until the budget)", async () => {
    const result = await scripted(turns, { maxResponseTokens: 300, unparseableCall: 'text' });
    expect(result.endings).toEqual(['length']);
    expect(result.trajectories[0]!.truncated).toBe(true);
    expect(result.trajectories[0]!.toolCalls).toEqual([]);
    expect(result.unparseableCalls[0]).toBeGreaterThanOrEqual(2);
    expect(result.trajectories[0]!.lossMask.every((m) => m === 1)).toBe(true);
  });

  it("'observe' needs a tool environment that renders parse errors", async () => {
    const { parseError: _, ...bare } = tools();
    await expect(
      rollout(new ScriptedPolicy(tokenizer, turns, marker), tokenizer, bare, [prompt('q')], {
        ...options,
        unparseableCall: 'observe',
      }),
    ).rejects.toThrow("unparseableCall 'observe' needs a tool environment with parseError");
  });
});

describe('budgets and loops', () => {
  it('ends a trajectory that makes the same call maxRepeatedCalls times in a row, the last one unrun', async () => {
    const same = call('print(1)');
    const result = await scripted([same, same, same, same], { maxRepeatedCalls: 3 });
    expect(result.endings).toEqual(['repeated_call']);
    expect(result.trajectories[0]!.toolCalls.map((c) => c.code)).toEqual(['print(1)', 'print(1)']);
  });

  it('ends a trajectory past its wall-time budget instead of running its next call', async () => {
    const slow = call('import time\ntime.sleep(0.3)\nprint(1)');
    const result = await scripted([slow, slow, slow, 'A: \\boxed{1}<|im_end|>'], { maxWallMs: 250 });
    expect(result.endings).toEqual(['wall_time']);
    expect(result.trajectories[0]!.toolCalls.length).toBeGreaterThanOrEqual(1);
    expect(result.trajectories[0]!.toolCalls.length).toBeLessThan(3);
  });

  it('names the endings eos (two lanes), max_turns and length', async () => {
    const turns = [call('print(6*7)'), call('print(2)'), 'A: \\boxed{42}<|im_end|>'];
    const result = await scripted(turns, { lanes: 2 }, ['a', 'b']);
    expect(result.endings).toEqual(['eos', 'eos']);
    const capped = await scripted(turns, { maxTurns: 1 }, ['a']);
    expect(capped.endings).toEqual(['max_turns']);
    const short = await scripted(turns, { maxResponseTokens: 20 }, ['a']);
    expect(short.endings).toEqual(['length']);
    expect(short.trajectories[0]!.responseIds).toHaveLength(20);
  });

  it("cuts an observation to the model's context, not only to maxResponseTokens", async () => {
    // A context of the prompt + 150 tokens: the call (95) fits, its output (200 characters) does not, though it fits
    // maxResponseTokens (600). Cut only to maxResponseTokens, the trajectory was longer than the model could score.
    const { promptIds } = prompt('q');
    const policy = new ScriptedPolicy(
      tokenizer,
      [call("print('x' * 200)"), 'A: \\boxed{1}<|im_end|>'],
      marker,
      {
        maxSequenceLength: promptIds.length + 150,
      },
    );
    const result = await rollout(policy, tokenizer, tools(), [prompt('q')], options);
    expect(result.endings).toEqual(['length']);
    expect(result.trajectories[0]!.toolCalls).toHaveLength(1);
    expect(result.trajectories[0]!.responseIds).toHaveLength(150);
  });
});

describe('bad input names the trajectory', () => {
  const answering = (edit: (sequence: GeneratedSequence) => GeneratedSequence): RolloutPolicy => {
    const scripted = new ScriptedPolicy(tokenizer, ['A: \\boxed{42}<|im_end|>'], marker);
    return {
      vocabSize: scripted.vocabSize,
      maxSequenceLength: scripted.maxSequenceLength,
      generate: async (prompts, sampling) => (await scripted.generate(prompts, sampling)).map(edit),
    };
  };

  it('a policy answer with fewer log-probs than tokens', async () => {
    const policy = answering((s) => ({ ...s, logProbs: s.logProbs.subarray(1) }));
    await expect(rollout(policy, tokenizer, tools(), [prompt('q1'), prompt('q2')], options)).rejects.toThrow(
      /^trajectory 0 \(group q1\): the policy returned (\d+) tokens but \d+ logProbs$/,
    );
  });

  it('an id outside the vocabulary', async () => {
    const policy = answering((s) => ({
      ...s,
      tokens: Int32Array.from(s.tokens, (id, i) => (i === 2 ? 100_000 : id)),
    }));
    await expect(rollout(policy, tokenizer, tools(), [prompt('q1')], options)).rejects.toThrow(
      `trajectory 0 (group q1): the policy returned id 100000 (tokens[2]), outside the vocabulary [0, ${tokenizer.vocabSize})`,
    );
  });

  it('a stop string the ids do not spell, and a stop id in the middle of a segment', async () => {
    const claimed = answering((s) => ({ ...s, finishReason: 'stop_string', stopString: '</tool_call>' }));
    await expect(rollout(claimed, tokenizer, tools(), [prompt('q1')], options)).rejects.toThrow(
      /trajectory 0 \(group q1\): segment 0 \(policy\) ends on stop id \d+ but finished with 'stop_string'/,
    );
    const eos = tokenizer.eosTokenId;
    const past = answering((s) => ({
      ...s,
      tokens: Int32Array.from(s.tokens, (id, i) => (i === 1 ? eos : id)),
    }));
    await expect(rollout(past, tokenizer, tools(), [prompt('q1')], options)).rejects.toThrow(
      `trajectory 0 (group q1): segment 0 (policy) holds stop id ${eos} at 1, before its end`,
    );
  });

  it('a failing generate call names the trajectories it was sampling', async () => {
    const policy: RolloutPolicy = {
      vocabSize: tokenizer.vocabSize,
      maxSequenceLength: 4096,
      generate: () =>
        Promise.reject(new Error('http://127.0.0.1:1/v1/completions: choices[0].token_ids missing')),
    };
    await expect(rollout(policy, tokenizer, tools(), [prompt('q1'), prompt('q2')], options)).rejects.toThrow(
      "trajectory 0 (group q1), trajectory 1 (group q2): the policy's generate failed at turn 0: " +
        'http://127.0.0.1:1/v1/completions: choices[0].token_ids missing',
    );
  });

  it('a tool environment that throws', async () => {
    const throwing: ToolEnvironment = {
      ...tools(),
      execute: () => Promise.reject(new Error('the sandbox is gone')),
    };
    const policy = new ScriptedPolicy(tokenizer, [call('print(1)')], marker);
    await expect(rollout(policy, tokenizer, throwing, [prompt('q1')], options)).rejects.toThrow(
      'trajectory 0 (group q1): the tool environment threw on call 1: the sandbox is gone',
    );
  });
});
