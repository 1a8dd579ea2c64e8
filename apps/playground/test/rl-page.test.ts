import { join } from 'node:path';
import { initBackend } from '@taorl/grpo';
import { loadPolicy } from '@taorl/model/node';
import { createSandbox, getToolFormat } from '@taorl/sandbox';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_ARGS, chromiumForTest, NO_CHROMIUM } from '../../../test/support/chromium';
import { DEMO_CONFIG, demoPrompts, demoTask, loadConfig } from '../scripts/demo-asset';
import { type DemoPrompt, demoTokenizer, promptIds } from '../src/model/demo-prompts';
import { demoChoices } from '../src/rl/demo-rl';
import { type RlEvent, type RlRunRequest, runDemoRl } from '../src/rl/demo-run';
import { metricsDiff } from './metrics-diff';
import { serveTestSite, type TestSite } from './test-site';
import { TINY_RL } from './tiny-rl';

// RL steps in the page (the model's worker on tfjs wasm, Python in pyodide web workers) against the same
// composition in Node (tfjs wasm, the pyodide sandbox): the same metrics lines, counts exactly, floats within the
// kernels' rounding. The asset: a fresh model of the demo's shape and the demo's task at a tiny size (TINY_RL), on a
// seed and temperature other than the demo config's, which the page's controls and sample button must take from
// task.json.

const executablePath = chromiumForTest('the RL page test');

/** Relative difference allowed between the page's and Node's float metrics (log-probs differ by <= 1e-4). */
const TOLERANCE = 1e-3;
const OVERRIDES = [...TINY_RL, 'seed=3', 'rollout.temperature=0.8'];
/** The prompts of the asset; the sample button's default seed, 1, samples the second. */
const PROMPTS = 4;

describe.skipIf(executablePath === null)(
  executablePath === null ? `the playground's RL (skipped: ${NO_CHROMIUM})` : "the playground's RL",
  () => {
    let served: TestSite;
    let browser: Browser;

    beforeAll(async () => {
      served = await serveTestSite('rl', PROMPTS, OVERRIDES);
      browser = await chromium.launch({ executablePath: executablePath as string, args: CHROMIUM_ARGS });
    }, 600_000);
    afterAll(async () => {
      await browser?.close();
      await served?.close();
    });

    it("gives the Node run's metrics for a seed's first steps", async () => {
      const task = demoTask(loadConfig(DEMO_CONFIG, OVERRIDES));
      // No filter, so that the update runs on the untrained policy's groups (tool-aware drops all-wrong ones).
      const request: RlRunRequest = {
        choices: { ...demoChoices(task), filters: [] },
        steps: 2,
        heldOut: 2,
        heldOutEvery: 1,
      };
      const page = await browser.newPage();
      await page.goto(served.origin);
      await page
        .locator('#model-state')
        .filter({ hasText: /^(ready|the model did not load)/ })
        .waitFor({ timeout: 300_000 });
      await page.waitForFunction(() => window.taorlRl !== undefined, null, { timeout: 60_000 });
      // The controls' defaults: task.json's seed and plug-ins, and the page says where they came from.
      expect(await page.inputValue('#rl-seed')).toBe('3');
      expect(await page.inputValue('#rl-filters')).toBe(task.rl.filters.join(', '));
      expect(await page.inputValue('#rl-shaper')).toBe(task.rl.shaper);
      expect(await page.inputValue('#rl-estimator')).toBe(task.rl.estimator);
      expect(await page.textContent('#rl-defaults')).toMatch(/default to policy\/task\.json/);
      // The sample button samples as the rollouts do: task.json's temperature and length (checked against Node below).
      expect(await page.textContent('#sample-settings')).toBe(
        "temperature 0.8, at most 48 new tokens: the demo's rollout sampling, from policy/task.json",
      );
      await page.click('#sample');
      await page
        .locator('#sample-stats')
        .filter({ hasText: /tokens in/ })
        .waitFor({ timeout: 300_000 });
      const sampled = await page.textContent('#sample-text');
      // The page stays responsive while it trains: a main-thread heartbeat (a setTimeout(0) loop stamping each turn)
      // must beat while the worker computes, between each two events it posts. Work on the main thread would hold
      // the heartbeat off for that stretch; no timing threshold is involved. Long tasks (> 50 ms) are only logged.
      const run = await page.evaluate(async (request) => {
        const rl = window.taorlRl;
        if (rl === undefined) throw new Error('no window.taorlRl');
        const clock = () => performance.timeOrigin + performance.now();
        const beats: number[] = [];
        let beating = true;
        const beat = () => {
          beats.push(clock());
          if (beating) setTimeout(beat, 0);
        };
        const longTasks: number[] = [];
        const observer = new PerformanceObserver((list) => {
          for (const entry of list.getEntries()) longTasks.push(entry.duration);
        });
        const observed = PerformanceObserver.supportedEntryTypes.includes('longtask');
        if (observed) observer.observe({ type: 'longtask' });
        const startedAt = clock();
        beat();
        const postedAt: number[] = [];
        try {
          const events = await rl.run(request, (_, at) => postedAt.push(at));
          // The run's end closes the last gap; long tasks not yet delivered to the observer are taken too.
          beats.push(clock());
          for (const entry of observer.takeRecords()) longTasks.push(entry.duration);
          return { events, startedAt, postedAt, beats, longTasks: observed ? longTasks : null };
        } finally {
          beating = false;
          observer.disconnect();
        }
      }, request);
      const inPage = run.events;
      const bounds = [run.startedAt, ...run.postedAt];
      const stalled = run.postedAt.flatMap((end, k) =>
        run.beats.some((at) => at > (bounds[k] as number) && at < end) ? [] : [`${k}: ${inPage[k]?.type}`],
      );
      const gaps = run.beats.slice(1).map((at, i) => at - (run.beats[i] as number));
      const perEvent = run.postedAt.map((end, k) => {
        const start = bounds[k] as number;
        const beats = run.beats.filter((at) => at > start && at < end).length;
        return `${inPage[k]?.type} ${((end - start) / 1000).toFixed(1)} s ${beats} beats`;
      });
      console.log(
        `main thread while training (${perEvent.join(', ')}): ${run.beats.length} heartbeats, longest gap ` +
          `${Math.max(...gaps).toFixed(0)} ms; ` +
          (run.longTasks === null
            ? 'long tasks not observable in this browser'
            : `${run.longTasks.length} long tasks, longest ${Math.max(0, ...run.longTasks).toFixed(0)} ms`),
      );
      expect(run.postedAt).toHaveLength(inPage.length);
      expect(stalled, 'events the worker computed with no main-thread heartbeat').toEqual([]);
      expect(await page.textContent('#rl-state')).toMatch(/^done: 2 steps in /);
      expect(await page.textContent('#curve-reward-caption')).toMatch(/^reward: .* at step 2 /);
      expect(await page.textContent('#curve-held-out-caption')).toMatch(/^held-out accuracy: .* at step 2 /);
      expect(await page.locator('#curve-held-out polyline').getAttribute('points')).toMatch(/^(\S+ ){2}\S+$/);
      await page.close();

      await initBackend({ prefer: 'wasm' });
      const policy = await loadPolicy(join(served.site, 'policy'));
      const sandbox = await createSandbox({ backend: 'pyodide' });
      const inNode: RlEvent[] = [];
      try {
        const { tokenizer, template } = demoTokenizer(policy.vocabSize);
        const prompt = demoPrompts(loadConfig(DEMO_CONFIG, OVERRIDES), PROMPTS)[1] as DemoPrompt;
        const [sample] = await policy.generate([promptIds(prompt, tokenizer, template)], {
          ...task.rollout.sampling,
          maxNewTokens: task.rollout.maxResponseTokens,
          seed: 1,
          stopTokenIds: [tokenizer.eosTokenId],
        });
        expect(sampled).toBe(tokenizer.decode(sample?.tokens ?? new Int32Array()));
        const parts = { policy, tokenizer, template, sandbox, format: getToolFormat(task.tool.format) };
        await runDemoRl(task, parts, request, (event) => inNode.push(event));
      } finally {
        policy.dispose();
        await sandbox.close();
      }
      expect(inPage.map((event) => event.type)).toEqual(['held-out', 'step', 'held-out', 'step', 'held-out']);
      const diff = metricsDiff(inPage, inNode, TOLERANCE);
      const exact = metricsDiff(inPage, inNode, 0);
      console.log(`page vs Node, bit for bit: ${exact.length === 0 ? 'equal' : exact.join('; ')}`);
      expect(diff).toEqual([]);
    }, 900_000);
  },
);
