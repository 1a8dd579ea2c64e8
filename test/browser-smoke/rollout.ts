import { ByteTokenizer } from '@taorl/data';
import {
  countEndings,
  type GeneratedSequence,
  openAiCompletions,
  type RolloutPolicy,
  rollout,
  type ToolEnvironment,
  toGeneratedSequence,
  WireFields,
} from '@taorl/rollout';

const tokenizer = new ByteTokenizer();

/** A policy that writes one tool call, then the answer after the observation, through a vLLM-style JSON answer. */
const policy: RolloutPolicy = {
  vocabSize: tokenizer.vocabSize,
  maxSequenceLength: 1024,
  async generate(prompts, sampling) {
    return prompts.map((prefix): GeneratedSequence => {
      const observed = tokenizer.decode(prefix).includes('```output\n');
      const ids = observed
        ? [...tokenizer.encodeUntrusted('A: \\boxed{42}'), tokenizer.eosTokenId]
        : [...tokenizer.encodeUntrusted('```python\nprint(6*7)\n```\n```output')];
      const answer = {
        choices: [
          {
            token_ids: ids,
            finish_reason: 'stop',
            stop_reason: observed ? null : '```output',
            logprobs: {
              token_logprobs: ids.map(() => -0.25),
              top_logprobs: ids.map((id) => ({ [`token_id:${id}`]: -0.25 })),
            },
          },
        ],
      };
      const request = {
        promptIds: prefix,
        maxNewTokens: sampling.maxNewTokens,
        temperature: 1,
        topP: 1,
        topK: 0,
        stopTokenIds: [],
        stopStrings: [],
        seed: undefined,
        topLogprobs: 1,
      };
      return toGeneratedSequence(
        openAiCompletions.parse(answer, new WireFields('browser://smoke'), request, tokenizer.vocabSize),
        tokenizer.vocabSize,
      );
    });
  },
};

/** A tool environment that answers every call with a fixed output (no sandbox in a browser). */
const tools: ToolEnvironment = {
  stopStrings: ['```output'],
  parse: (segment) => /```python\n([\s\S]*?)```/.exec(segment)?.[1] ?? null,
  execute: async () => ({ status: 'ok', observation: '\n42\n```\n', durationMs: 0 }),
};

/** A two-turn rollout through the engine, token integrity checked, and its endings and token columns. */
export async function run() {
  const promptIds = tokenizer.encode('<|im_start|>user\nQ: 6*7?<|im_end|>\n<|im_start|>assistant\n');
  const { trajectories, endings } = await rollout(policy, tokenizer, tools, [{ groupId: 'q1', promptIds }], {
    maxTurns: 2,
    maxResponseTokens: 256,
    sampling: {},
    seed: 1,
    lanes: 1,
  });
  const [trajectory] = trajectories;
  return {
    endings: countEndings(endings),
    text: trajectory!.text,
    toolCalls: trajectory!.toolCalls.map(({ status, code, startToken, endToken }) => ({
      status,
      code,
      startToken,
      endToken,
    })),
    policyTokens: trajectory!.lossMask.reduce((sum, mask) => sum + mask, 0),
    responseTokens: trajectory!.responseIds.length,
  };
}
