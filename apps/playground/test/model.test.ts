import { cpSync, readFileSync, truncateSync, unlinkSync } from 'node:fs';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { AdamW, initBackend } from '@taorl/grpo';
import { loadPolicy } from '@taorl/model/node';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_ARGS, chromiumForTest, NO_CHROMIUM } from '../../../test/support/chromium';
import { plainBatch, sequenceBatch } from '../bench/sequence-batch';
import { DEMO_CONFIG, demoPrompts, loadConfig } from '../scripts/demo-asset';
import { demoTokenizer, promptIds } from '../src/model/demo-prompts';
import type { Sample, WorkerSampling } from '../src/model/protocol';
import { trainStep } from '../src/model/train-step';
import { serveStatic } from './static-server';
import { serveTestSite, type TestSite } from './test-site';

// The demo's policy in the page's model worker (tfjs wasm), in headless Chromium: cross-origin isolated (threads)
// and not (one thread); samples equal to @taorl/model's in Node on the same backend; a missing or truncated asset
// file, and a browser without WebAssembly, each said plainly. The asset is a tiny model of the demo's shape,
// untrained, saved as `taorl sft` saves its policy, with the demo's held-out prompts.

const executablePath = chromiumForTest('the model test');

/** Log-probs of the same tokens may differ by this much between the browser's and Node's wasm kernels. */
const LOGPROB_TOLERANCE = 1e-4;

describe.skipIf(executablePath === null)(
  executablePath === null
    ? `the playground's model (skipped: ${NO_CHROMIUM})`
    : "the playground's model worker",
  () => {
    let served: TestSite;
    let browser: Browser;
    const statics: Server[] = [];

    beforeAll(async () => {
      served = await serveTestSite('model');
      browser = await chromium.launch({ executablePath: executablePath as string, args: CHROMIUM_ARGS });
    }, 600_000);
    afterAll(async () => {
      await browser?.close();
      for (const s of statics) s.close();
      await served?.close();
    });

    /** A page of the site at `origin`, once its model panel has loaded or failed; the state line it shows. */
    async function openPage(origin: string, target: Browser = browser) {
      const page = await target.newPage();
      await page.goto(origin);
      const state = page.locator('#model-state');
      await state.filter({ hasText: /^(ready|the model did not load)/ }).waitFor({ timeout: 300_000 });
      return { page, state: (await state.textContent()) ?? '' };
    }

    /** A copy of the site, changed by `edit`, served by a plain static host (no isolation headers). */
    async function variant(name: string, edit: (dir: string) => void = () => {}): Promise<string> {
      const dir = join(served.work, name);
      cpSync(served.site, dir, { recursive: true });
      edit(dir);
      const { origin, server } = await serveStatic(dir);
      statics.push(server);
      return origin;
    }

    it('samples in the worker, threaded when isolated, and equals @taorl/model in Node on wasm', async () => {
      const origin = served.origin;
      const { page, state } = await openPage(origin);
      expect(state).toMatch(/^ready: [\d,]+ parameters on tfjs wasm, threaded, SIMD$/);
      await page.click('#sample');
      await page
        .locator('#sample-stats')
        .filter({ hasText: /tokens in/ })
        .waitFor({ timeout: 300_000 });
      expect(await page.textContent('#sample-question')).toContain('(reference: ');
      await page.fill('#seed', '-1');
      await page.click('#sample');
      expect(await page.textContent('#sample-stats')).toBe('seed: "-1" is not a whole number of 0 or more');

      const { tokenizer, template } = demoTokenizer(259);
      const prompts = demoPrompts(loadConfig(DEMO_CONFIG, []), 3);
      const sampling: WorkerSampling = {
        maxNewTokens: 40,
        temperature: 0.7,
        seed: 11,
        stopTokenIds: [tokenizer.eosTokenId],
      };
      const inPage = await page.evaluate(
        async ({ sampling }) => {
          const model = window.taorlModel;
          if (model === undefined) throw new Error('no window.taorlModel');
          return {
            ids: [0, 1, 2].map((i) => model.promptIds(i)),
            samples: (await model.sample([0, 1, 2], sampling)).samples,
          };
        },
        { sampling },
      );
      const ids = prompts.map((prompt) => promptIds(prompt, tokenizer, template));
      expect(inPage.ids).toEqual(ids.map((row) => [...row]));

      await initBackend({ prefer: 'wasm' });
      const policy = await loadPolicy(join(served.site, 'policy'));
      const inNode: Sample[] = (await policy.generate(ids, sampling)).map((s) => ({
        tokens: [...s.tokens],
        logProbs: [...s.logProbs],
        finishReason: s.finishReason,
      }));
      expect(inPage.samples.map((s) => s.tokens)).toEqual(inNode.map((s) => s.tokens));
      expect(inPage.samples.map((s) => s.finishReason)).toEqual(inNode.map((s) => s.finishReason));
      const gaps = inPage.samples.flatMap((s, i) =>
        s.logProbs.map((lp, j) => Math.abs(lp - inNode[i]!.logProbs[j]!)),
      );
      expect(gaps.length).toBeGreaterThan(0);
      console.log(`largest log-prob gap, page vs Node (wasm): ${Math.max(...gaps)}`);
      expect(Math.max(...gaps)).toBeLessThanOrEqual(LOGPROB_TOLERANCE);

      // One training step on the sampled sequences, in the worker and in Node: the same loss.
      const batch = sequenceBatch(ids, inNode, tokenizer.padTokenId);
      const pageLoss = await page.evaluate(
        async ({ b }) => {
          const model = window.taorlModel as NonNullable<typeof window.taorlModel>;
          return (await model.train(b, 1e-3)).loss;
        },
        { b: plainBatch(batch) },
      );
      const nodeLoss = trainStep(policy, new AdamW(policy.trainableVariables()), batch, 1e-3);
      policy.dispose();
      expect(nodeLoss).toBeGreaterThan(0);
      expect(Math.abs(pageLoss - nodeLoss)).toBeLessThanOrEqual(LOGPROB_TOLERANCE);
      await page.close();
    }, 600_000);

    it('runs on one thread, saying why, where the host sends no isolation headers', async () => {
      const { page, state } = await openPage(await variant('plain'));
      expect(state).toMatch(
        /one thread \(the page is not cross-origin isolated .*Cross-Origin-Opener-Policy/,
      );
      await page.click('#sample');
      await page
        .locator('#sample-stats')
        .filter({ hasText: /tokens in/ })
        .waitFor({ timeout: 300_000 });
      await page.close();
    }, 600_000);

    it('names the file of the asset that is missing or cut short', async () => {
      const missing = await variant('missing', (dir) => unlinkSync(join(dir, 'policy', 'model.safetensors')));
      expect((await openPage(missing)).state).toBe(
        `the model did not load: ${missing}policy/model.safetensors: HTTP 404 Not Found; the site has no policy ` +
          'asset there (write it with `pnpm --filter @taorl/playground asset`, then build the site again)',
      );
      const cut = await variant('truncated', (dir) => {
        const file = join(dir, 'policy', 'model.safetensors');
        truncateSync(file, Math.floor(readFileSync(file).length / 2));
      });
      expect((await openPage(cut)).state).toMatch(
        new RegExp(`^the model did not load: ${cut}policy/model\\.safetensors: `),
      );
      // The sampling settings and the RL panel's defaults come from task.json: without it the model loads, and the
      // sample button and the RL panel say what is missing.
      const noTask = await variant('no-task', (dir) => unlinkSync(join(dir, 'policy', 'task.json')));
      const { page, state } = await openPage(noTask);
      expect(state).toMatch(/^ready/);
      const settings = page.locator('#sample-settings');
      await settings.filter({ hasText: /^sampling is off/ }).waitFor({ timeout: 60_000 });
      expect(await settings.textContent()).toMatch(
        new RegExp(`^sampling is off: ${noTask}policy/task\\.json: HTTP 404`),
      );
      expect(await page.locator('#sample').isDisabled()).toBe(true);
      const defaults = page.locator('#rl-defaults');
      await defaults.filter({ hasText: /^RL is off/ }).waitFor({ timeout: 60_000 });
      expect(await defaults.textContent()).toMatch(
        new RegExp(`^RL is off: ${noTask}policy/task\\.json: HTTP 404`),
      );
      expect(await page.locator('#rl-run').isDisabled()).toBe(true);
      await page.close();
    }, 600_000);

    it('says that WebAssembly is needed in a browser without it', async () => {
      const context = await browser.newContext();
      // The page's check runs before the worker starts: a page without WebAssembly is what the browser gives.
      await context.addInitScript(() => {
        Reflect.deleteProperty(globalThis, 'WebAssembly');
      });
      try {
        const page = await context.newPage();
        await page.goto(served.origin);
        const state = page.locator('#model-state');
        await state.filter({ hasText: /^the model did not load/ }).waitFor({ timeout: 300_000 });
        expect(await state.textContent()).toBe(
          "the model did not load: this browser has no WebAssembly: the model runs on tfjs's wasm backend, which needs it",
        );
      } finally {
        await context.close();
      }
    }, 600_000);
  },
);
