import { initBackend } from '@taorl/grpo';
import { createTinyPolicy } from '@taorl/model/node';
import { type RlStepMetrics, rlStep } from '@taorl/rl';
import { createSandbox, getToolFormat, type PyodideSandbox } from '@taorl/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_CONFIG, demoTask, loadConfig } from '../scripts/demo-asset';
import { demoTokenizer } from '../src/model/demo-prompts';
import { demoChoices, demoRlContext } from '../src/rl/demo-rl';

// The page's RL step composition (src/rl/demo-rl.ts) in Node: the demo's task.json of a tiny config, a freshly
// initialised policy of the demo's shape on tfjs wasm, Python in the pyodide sandbox; two rlStep calls.

/** The demo config made small enough for a test: 2 groups of 2, short responses. */
export const TINY_RL = [
  'rl.groups=2',
  'rl.groupSize=2',
  'rl.maxGenBatches=1',
  'rollout.maxResponseTokens=48',
  'rollout.maxTurns=2',
];

describe("the playground's RL step in Node", () => {
  let sandbox: PyodideSandbox;
  beforeAll(async () => {
    await initBackend({ prefer: 'wasm' });
    sandbox = await createSandbox({ backend: 'pyodide', workers: 1 });
  }, 300_000);
  afterAll(async () => {
    await sandbox?.close();
  });

  it('runs the demo task and trains the policy (shaper and estimator by name, no filter)', async () => {
    const task = demoTask(loadConfig(DEMO_CONFIG, TINY_RL));
    const policy = createTinyPolicy({ vocabSize: 259, maxPositionEmbeddings: 512, tokenShift: true, seed: 5 });
    const { tokenizer, template } = demoTokenizer(policy.vocabSize);
    const { context, updater } = demoRlContext(
      task,
      { policy, tokenizer, template, sandbox, format: getToolFormat(task.tool.format) },
      // No filter: an untrained policy's groups are all wrong, which tool-aware drops, and the update must run.
      { ...demoChoices(task), filters: [] },
    );
    const lines: RlStepMetrics[] = [];
    try {
      await context.sync.start(0);
      for (const step of [1, 2]) lines.push(await rlStep(context, step));
    } finally {
      updater.dispose();
      await context.sync.close();
      policy.dispose();
    }
    expect(lines.map((line) => line.step)).toEqual([1, 2]);
    for (const line of lines) {
      expect(line.trajectoriesGenerated).toBe(4);
      expect(line.estimator).toBe('grpo');
      expect(line.shaper).toBe('tao');
      expect(Number.isFinite(line.reward)).toBe(true);
      expect(line.trajectoriesKept).toBe(4);
      expect(line.gradNorm).toBeGreaterThan(0);
    }
    expect(lines.map((line) => line.policyVersion)).toEqual([0, 1]);
    console.log(JSON.stringify(lines.map(({ time, tokensPerSecond, ...rest }) => rest)));
  }, 600_000);
});
