import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initBackend } from '@taorl/grpo';
import { createTinyPolicy, loadPolicy } from '@taorl/model/node';
import type { RlStepMetrics } from '@taorl/rl';
import { createSandbox, getToolFormat, type PyodideSandbox } from '@taorl/sandbox';
import { runCli } from '@taorl/trainer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_CONFIG, demoTask, loadConfig } from '../scripts/demo-asset';
import { demoTokenizer } from '../src/model/demo-prompts';
import { demoChoices } from '../src/rl/demo-rl';
import { type RlEvent, runDemoRl } from '../src/rl/demo-run';
import { metricsDiff } from './metrics-diff';
import { TINY_RL } from './tiny-rl';

// The page's RL step composition (src/rl/demo-rl.ts) in Node: the demo's task.json of a tiny config, a freshly
// initialised policy of the demo's shape on tfjs wasm, Python in the pyodide sandbox; two rlStep calls.

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
    const policy = createTinyPolicy({
      vocabSize: 259,
      maxPositionEmbeddings: 512,
      tokenShift: true,
      seed: 5,
    });
    const { tokenizer, template } = demoTokenizer(policy.vocabSize);
    const events: RlEvent[] = [];
    const lines = await runDemoRl(
      task,
      { policy, tokenizer, template, sandbox, format: getToolFormat(task.tool.format) },
      // No filter: an untrained policy's groups are all wrong, which tool-aware drops, and the update must run.
      { choices: { ...demoChoices(task), filters: [] }, steps: 2, heldOut: 2, heldOutEvery: 1 },
      (event) => events.push(event),
    ).finally(() => policy.dispose());
    // The held-out curve's points: before training (step 0), then after each step (every 1 step).
    expect(
      events.map((event) => (event.type === 'step' ? event.metrics.step : `held-out ${event.step}`)),
    ).toEqual(['held-out 0', 1, 'held-out 1', 2, 'held-out 2']);
    for (const event of events) {
      if (event.type !== 'held-out') continue;
      expect(event.result.problems).toBe(2);
      expect(event.result.accuracy).toBeGreaterThanOrEqual(0);
      expect(event.result.accuracy).toBeLessThanOrEqual(1);
    }
    console.log(JSON.stringify(lines.map(({ time, tokensPerSecond, ...rest }) => rest)));
    expect(lines.map((line) => line.step)).toEqual([1, 2]);
    for (const line of lines) {
      expect(line.trajectoriesGenerated).toBe(4);
      expect(line.estimator).toBe('grpo');
      expect(line.shaper).toBe('tao');
      expect(Number.isFinite(line.reward)).toBe(true);
      expect(line.trajectoriesKept).toBe(4);
      // A group whose rewards are all equal has no advantage; the update then has no gradient.
      expect(line.gradNorm > 0).toBe((line.meanAbsAdvantage ?? 0) > 0);
    }
    expect(lines.some((line) => line.gradNorm > 0)).toBe(true);
    expect(lines.map((line) => line.policyVersion)).toEqual([0, 1]);
  }, 600_000);

  it('gives the metrics of `taorl rl` on the same config (wasm, pyodide, one worker)', async () => {
    const work = mkdtempSync(join(tmpdir(), 'taorl-playground-cli-'));
    try {
      const saved = join(work, 'sft-policy');
      const fresh = createTinyPolicy({
        vocabSize: 259,
        maxPositionEmbeddings: 512,
        tokenShift: true,
        seed: 5,
      });
      await fresh.save(saved);
      fresh.dispose();
      const overrides = [...TINY_RL, 'rl.filters=[]'];
      const cli = [
        ...overrides,
        'rl.steps=2',
        'workers=1',
        'model.source=embedded',
        `model.path=${JSON.stringify(saved)}`,
        'tool.sandbox.name=pyodide',
        'tool.sandbox.workers=1',
        'task.testSize=2',
        'eval.samples=1',
      ];
      const task = demoTask(loadConfig(DEMO_CONFIG, overrides));
      const policy = await loadPolicy(saved);
      const parts = {
        policy,
        ...demoTokenizer(policy.vocabSize),
        sandbox,
        format: getToolFormat('markdown'),
      };
      const fromPage = await runDemoRl(
        task,
        parts,
        { choices: demoChoices(task), steps: 2, heldOut: 0, heldOutEvery: 1 },
        () => {},
      ).finally(() => policy.dispose());
      const out = join(work, 'run');
      const err: string[] = [];
      const io = { out: () => {}, err: (text: string) => err.push(text) };
      const args = ['rl', '--config', DEMO_CONFIG, '--out', out, ...cli.flatMap((o) => ['--set', o])];
      expect(await runCli(args, io), err.join('')).toBe(0);
      const fromCli = readFileSync(join(out, 'metrics.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as RlStepMetrics)
        .filter((line) => line.phase === 'rl');

      const diff = metricsDiff(fromPage, fromCli, 0);
      console.log(`runDemoRl vs taorl rl: ${diff.length === 0 ? 'equal' : diff.join('; ')}`);
      expect(diff).toEqual([]);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }, 900_000);
});
