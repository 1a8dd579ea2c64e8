import { initBackend } from '@taorl/grpo';
import { type RolloutPolicy, rollout, sandboxToolEnvironment } from '@taorl/rollout';
import { createSandbox, markdownFormat, type Sandbox } from '@taorl/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TransformerPolicy } from '../src/index.js';
import { PolicyWorkers } from '../src/workers/policy-workers.js';
import { byteTokenizer, paddedVocabPolicy } from './support/padded-vocab.js';

// Local rollouts from a model with more rows than its tokenizer has ids, the padding rows scoring highest: the
// rollout must never draw them (it would fail to decode its own response).

let sandbox: Sandbox;
let policy: TransformerPolicy;
beforeAll(async () => {
  await initBackend({ prefer: 'wasm' });
  sandbox = await createSandbox({ backend: 'local', workers: 1, preload: [] });
  policy = paddedVocabPolicy(4);
});
afterAll(async () => {
  policy?.dispose();
  await sandbox?.close();
});

const prompt = { groupId: 'q', promptIds: byteTokenizer.encode('<|im_start|>user\nQ: 6*7?<|im_end|>\n') };

/** Rolls out twice from `model` and checks every response id decodes. */
async function expectDecodableRollouts(model: RolloutPolicy, temperature: number): Promise<void> {
  const tools = sandboxToolEnvironment(markdownFormat, sandbox, { timeoutMs: 5000, observationChars: 256 });
  const { trajectories } = await rollout(model, byteTokenizer, tools, [prompt, prompt], {
    maxTurns: 1,
    maxResponseTokens: 32,
    sampling: { temperature },
    seed: 9,
    lanes: 1,
  });
  for (const trajectory of trajectories) {
    expect(trajectory.responseIds.length).toBeGreaterThan(0);
    expect(Math.max(...trajectory.responseIds)).toBeLessThan(byteTokenizer.vocabSize);
    expect(trajectory.text).toBe(byteTokenizer.decode(trajectory.responseIds));
    // Recorded log-probs are of the whole distribution, where the padding ids hold nearly all the mass.
    const policyTokens = trajectory.oldLogProbs.filter((_, i) => trajectory.lossMask[i] === 1);
    expect(Math.max(...policyTokens)).toBeLessThan(-5);
  }
}

describe('rollout with a vocabulary padded past the tokenizer', () => {
  it('samples only ids the tokenizer decodes, greedy and at temperature 1', async () => {
    await expectDecodableRollouts(policy, 0);
    await expectDecodableRollouts(policy, 1);
  });

  it('on policy worker threads too (the limit travels with the sampling parameters)', async () => {
    const workers = new PolicyWorkers(policy, 2, { kind: 'byte' });
    try {
      await expectDecodableRollouts(workers, 1);
    } finally {
      await workers.dispose();
    }
  }, 60_000);
});
