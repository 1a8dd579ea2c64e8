import {
  type GeneratedSequence,
  type RolloutPolicy,
  rollout,
  type SamplingParams,
  sandboxToolEnvironment,
} from '@taorl/rollout';
import { createSandbox, markdownFormat, type Sandbox } from '@taorl/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedPolicy } from '../../../../packages/rollout/test/support/scripted-policy.js';
import { tokenizer } from './remote-training-support.js';

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await createSandbox({ backend: 'local', workers: 1, preload: [] });
});
afterAll(async () => {
  await sandbox?.close();
});

/** Counts overlapping generate calls; each call yields to the event loop once before answering. */
class OverlapProbe implements RolloutPolicy {
  inFlight = 0;
  maxInFlight = 0;

  constructor(
    private readonly inner: RolloutPolicy,
    readonly concurrentGenerate: boolean,
  ) {}

  get vocabSize(): number {
    return this.inner.vocabSize;
  }

  get maxSequenceLength(): number {
    return this.inner.maxSequenceLength;
  }

  async generate(prompts: readonly Int32Array[], sampling: SamplingParams): Promise<GeneratedSequence[]> {
    this.maxInFlight = Math.max(this.maxInFlight, ++this.inFlight);
    try {
      await new Promise((resolve) => setImmediate(resolve));
      return await this.inner.generate(prompts, sampling);
    } finally {
      this.inFlight--;
    }
  }
}

describe('rollout lanes and concurrentGenerate', () => {
  it('lets lanes call a concurrent policy at once, one at a time otherwise, with the same trajectories', async () => {
    const turns = ['```python\nprint(6*7)\n```\n```output', 'A: \\boxed{42}<|im_end|>'];
    const prompt = { groupId: 'q', promptIds: tokenizer.encode('<|im_start|>user\nQ: 6*7?<|im_end|>\n') };
    const tools = sandboxToolEnvironment(markdownFormat, sandbox, { timeoutMs: 5000, observationChars: 512 });
    const options = { maxTurns: 2, maxResponseTokens: 256, sampling: { temperature: 1 }, seed: 1, lanes: 2 };
    const run = async (concurrent: boolean) => {
      const policy = new OverlapProbe(new ScriptedPolicy(tokenizer, turns, '```output\n'), concurrent);
      const result = await rollout(policy, tokenizer, tools, [prompt, prompt, prompt, prompt], options);
      return { policy, result };
    };
    const serial = await run(false);
    const concurrent = await run(true);
    expect(serial.policy.maxInFlight).toBe(1);
    expect(concurrent.policy.maxInFlight).toBe(2);
    expect(concurrent.result.trajectories.map((t) => t.text)).toEqual(
      serial.result.trajectories.map((t) => t.text),
    );
    expect(concurrent.result.trajectories[0]!.toolCalls[0]!.status).toBe('ok');
    // Overlapping calls count once: generation time never exceeds the rollout's wall time.
    const { generationMs, sandboxMs, wallMs } = concurrent.result.timing;
    expect(generationMs).toBeGreaterThan(0);
    expect(generationMs + sandboxMs).toBeCloseTo(wallMs, 6);
  });
});
