import { ByteTokenizer, type Trajectory } from '@taorl/data';
import { markdownFormat } from '@taorl/sandbox';
import { describe, expect, it } from 'vitest';
import {
  checkTokenIntegrity,
  policyTokenCount,
  type RolloutRecord,
  rollout,
  TokenIntegrityError,
  type ToolEnvironment,
} from '../src/index.js';
import { ScriptedPolicy } from './support/scripted-policy.js';

// The bookkeeping bugs of multi-turn rollouts, each made on purpose on a real trajectory, and the check that
// catches it. The tool environment answers with a fixed output, so this runs without a sandbox.

const tokenizer = new ByteTokenizer();
const tools: ToolEnvironment = {
  stopStrings: markdownFormat.stopStrings,
  parse: (segment) => markdownFormat.parse(segment)?.code ?? null,
  execute: async () => ({ status: 'ok', observation: '\n42\n```\n', durationMs: 1 }),
};
const turns = ['```python\nprint(6*7)\n```\n```output', 'A: \\boxed{42}<|im_end|>'];

async function rolledOut(): Promise<{ trajectory: Trajectory; record: RolloutRecord }> {
  const policy = new ScriptedPolicy(tokenizer, turns, '```output\n');
  const prompt = { groupId: 'q7', promptIds: tokenizer.encode('<|im_start|>user\nQ?<|im_end|>\n') };
  const result = await rollout(policy, tokenizer, tools, [prompt], {
    maxTurns: 2,
    maxResponseTokens: 256,
    sampling: {},
    seed: 1,
    lanes: 1,
  });
  return { trajectory: result.trajectories[0]!, record: result.records[0]! };
}

const options = {
  vocabSize: tokenizer.vocabSize,
  stopTokenIds: [tokenizer.eosTokenId],
  decode: (ids: Int32Array) => tokenizer.decode(ids),
  label: 'trajectory 0 (group q7)',
};

/** The check's verdict on a copy of the trajectory changed by `edit`. */
async function verdict(edit: (t: Trajectory) => void): Promise<string> {
  const { trajectory, record } = await rolledOut();
  const copy: Trajectory = {
    ...trajectory,
    responseIds: trajectory.responseIds.slice(),
    lossMask: trajectory.lossMask.slice(),
    oldLogProbs: trajectory.oldLogProbs.slice(),
    entropies: trajectory.entropies.slice(),
    toolCalls: trajectory.toolCalls.map((call) => ({ ...call })),
  };
  edit(copy);
  try {
    checkTokenIntegrity(copy, record, options);
    return 'passed';
  } catch (error) {
    expect(error).toBeInstanceOf(TokenIntegrityError);
    return (error as Error).message;
  }
}

describe('checkTokenIntegrity', () => {
  it('passes the trajectory as rolled out and counts policy and observation tokens', async () => {
    const { trajectory, record } = await rolledOut();
    const report = checkTokenIntegrity(trajectory, record, options);
    const observed = trajectory.toolCalls[0]!;
    expect(report.observationTokens).toBe(observed.endToken - observed.startToken);
    expect(report.policyTokens).toBe(trajectory.responseIds.length - report.observationTokens);
    // The length a length shaper sees: policy tokens only, not the tool's output.
    expect(policyTokenCount(trajectory)).toBe(report.policyTokens);
    expect(policyTokenCount(trajectory)).toBeLessThan(trajectory.lossMask.length);
  });

  it('catches an observation re-tokenized differently from what was inserted', async () => {
    expect(
      await verdict((t) => {
        const at = t.toolCalls[0]!.startToken;
        t.responseIds[at] = tokenizer.encode(' ')[0]!;
      }),
    ).toMatch(/^trajectory 0 \(group q7\): responseIds\[\d+\] is 32, segment 1 \(observation\) has 10$/);
  });

  it('catches a loss mask over tool output, and one missing on a sampled token', async () => {
    expect(await verdict((t) => (t.lossMask[t.toolCalls[0]!.startToken] = 1))).toMatch(
      /lossMask\[\d+\] is 1 on an observation token \(segment 1 \(observation\)\)$/,
    );
    expect(await verdict((t) => (t.lossMask[0] = 0))).toBe(
      'trajectory 0 (group q7): lossMask[0] is 0 on a sampled token (segment 0 (policy))',
    );
  });

  it('catches log-probs or entropies that are not the sampled ones, and a log-prob on tool output', async () => {
    expect(await verdict((t) => (t.oldLogProbs[3] = -0.5))).toMatch(
      /^trajectory 0 \(group q7\): oldLogProbs\[3\] is -0.5, the policy sampled it at -0.4000000059604645$/,
    );
    expect(await verdict((t) => (t.entropies[0] = 0))).toMatch(/entropies\[0\] is 0, the policy reported/);
    expect(await verdict((t) => (t.oldLogProbs[t.toolCalls[0]!.startToken] = -1))).toMatch(
      /are not 0 on an observation token$/,
    );
  });

  it('catches a dropped token, a shifted tool-call span and text that is not the ids', async () => {
    expect(await verdict((t) => (t.responseIds = t.responseIds.subarray(1)))).toMatch(
      /responseIds hold \d+ tokens, the sampled and observed segments \d+$/,
    );
    expect(await verdict((t) => (t.toolCalls[0]!.startToken -= 1))).toMatch(
      /toolCalls\[0\] spans \[\d+, \d+\), the observation/,
    );
    expect(await verdict((t) => (t.text = `${t.text} `))).toBe(
      'trajectory 0 (group q7): text is not the decoded responseIds',
    );
  });
});
