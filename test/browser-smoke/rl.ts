import { getAdvantageEstimator, getEntropyShaper } from '@taorl/advantage';
import { ByteTokenizer, type Trajectory } from '@taorl/data';
import { getFilter, hasMarkdownCodeBlock } from '@taorl/filter';
import { localPolicySync, type PolicyUpdate, type RlStepContext, rlStep } from '@taorl/rl';
import type { GeneratedSequence, RolloutPolicy, ToolEnvironment } from '@taorl/rollout';

const tokenizer = new ByteTokenizer();

/**
 * A policy that writes one tool call, then an answer after the observation: 42 and 41 in turn, so a group of four
 * holds two right answers (the filters keep it and the advantages are not all 0). Entropies rise along a turn.
 */
function scriptedPolicy(): RolloutPolicy {
  let answers = 0;
  const sequence = (text: string, eos: boolean): GeneratedSequence => {
    const ids = Int32Array.from([...tokenizer.encodeUntrusted(text), ...(eos ? [tokenizer.eosTokenId] : [])]);
    return {
      tokens: ids,
      logProbs: new Float32Array(ids.length).fill(-0.25),
      entropies: Float32Array.from(ids, (_, i) => i / ids.length),
      finishReason: eos ? 'stop_token' : 'stop_string',
      ...(eos ? {} : { stopString: '```output' }),
    };
  };
  return {
    vocabSize: tokenizer.vocabSize,
    maxSequenceLength: 1024,
    async generate(prompts) {
      return prompts.map((prefix) =>
        tokenizer.decode(prefix).includes('```output\n')
          ? sequence(`A: \\boxed{${answers++ % 2 === 0 ? 42 : 41}}`, true)
          : sequence('```python\nprint(6*7)\n```\n```output', false),
      );
    },
  };
}

/** A tool environment that answers every call with a fixed output (no sandbox in this check). */
const tools: ToolEnvironment = {
  stopStrings: ['```output'],
  parse: (segment) => /```python\n([\s\S]*?)```/.exec(segment)?.[1] ?? null,
  execute: async () => ({ status: 'ok', observation: '\n42\n```\n', durationMs: 0 }),
};

/** One TAO-RL step of @taorl/rl with parts found by name; the update records what it was given. */
export async function run() {
  const trained: { trajectories: number; advantageSum: number }[] = [];
  const update: PolicyUpdate = async (batch: readonly Trajectory[], advantages) => {
    const sum = advantages.reduce((total, row) => total + row.reduce((a, b) => a + b, 0), 0);
    trained.push({ trajectories: batch.length, advantageSum: sum });
    return { loss: 0, approxKl: 0, gradNorm: 0 };
  };
  const promptIds = tokenizer.encode('<|im_start|>user\nQ: 6*7?<|im_end|>\n<|im_start|>assistant\n');
  const context: RlStepContext = {
    policy: scriptedPolicy(),
    sync: localPolicySync(),
    tokenizer,
    tools,
    hasCodeBlock: hasMarkdownCodeBlock,
    problems: (step, batch, count) =>
      Array.from({ length: count }, (_, i) => ({ id: `s${step}b${batch}p${i}`, promptIds, gold: '42' })),
    estimator: getAdvantageEstimator('grpo'),
    shaper: getEntropyShaper('tao'),
    filter: getFilter('tool-aware'),
    update,
    rollout: { maxTurns: 2, maxResponseTokens: 256, sampling: {}, lanes: 1 },
    groups: 1,
    groupSize: 4,
    maxGenBatches: 2,
    overlong: null,
    maxInfraFailureRate: 0,
    seed: 1,
  };
  await context.sync.start(0);
  // Wall-clock times differ from run to run; every other field must be the same in a browser as in Node.
  const { time, tokensPerSecond, ...metrics } = await rlStep(context, 1);
  return { metrics, trained, timed: time.totalMs >= 0 && tokensPerSecond > 0 };
}
