import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as advantageDriver from './browser-smoke/advantage';
import * as dataDriver from './browser-smoke/data';
import * as evalDriver from './browser-smoke/eval';
import * as filterDriver from './browser-smoke/filter';
import * as modelDriver from './browser-smoke/model';
import * as rlDriver from './browser-smoke/rl';
import * as rolloutDriver from './browser-smoke/rollout';
import { CHROMIUM_ARGS, chromiumForTest, NO_CHROMIUM } from './support/chromium';

// The packages whose main entry claims to run in any JavaScript runtime, each bundled for the browser from the
// code vitest tests (the "@taorl/source" condition) and run in headless Chromium, where it must compute what it
// computes in Node. @taorl/sandbox's main entry is Node's (it starts processes), so it is not here; @taorl/model's
// brings TensorFlow.js (and @taorl/grpo) along, on tfjs's plain JavaScript backend. scripts/check-packages.mjs checks the built entries the same way.

const drivers = {
  eval: evalDriver,
  filter: filterDriver,
  advantage: advantageDriver,
  data: dataDriver,
  rollout: rolloutDriver,
  rl: rlDriver,
  model: modelDriver,
} as const;
type DriverName = keyof typeof drivers;
type DriverResult<Name extends DriverName> = Awaited<ReturnType<(typeof drivers)[Name]['run']>>;

const smokeDir = fileURLToPath(new URL('./browser-smoke/', import.meta.url));
/**
 * Bundles code for the browser as an application would. esbuild refuses a Node built-in there ('Could not resolve
 * "node:fs"', naming the file that imports it) unless the importing package maps it away for browsers.
 */
async function bundleForBrowser(contents: string): Promise<string> {
  const result = await build({
    stdin: { contents, resolveDir: smokeDir, loader: 'ts', sourcefile: 'smoke-entry.ts' },
    bundle: true,
    write: false,
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
    conditions: ['@taorl/source'],
    // The packages' `sideEffects` fields name their published builds only (sources are never published), so a
    // bundle of the sources keeps every module: the files that register built-in plug-ins are found by name.
    // The packaging check bundles the installed builds with `sideEffects` applied.
    ignoreAnnotations: true,
    logLevel: 'silent',
  });
  return result.outputFiles[0]?.text ?? '';
}

/** The bundle of one driver: it leaves the driver's result (a promise) on globalThis. */
const driverBundle = (name: DriverName): Promise<string> =>
  bundleForBrowser(
    `import { run } from './${name}';\n(globalThis as any).__taorlSmoke = (async () => run())();`,
  );

describe('portable entries bundle for the browser without Node built-ins', () => {
  it('the check fails on an entry that needs Node (@taorl/eval/node)', async () => {
    await expect(bundleForBrowser(`export * from '@taorl/eval/node';`)).rejects.toThrow(
      /Could not resolve "node:/,
    );
  });

  it.each(Object.keys(drivers) as DriverName[])('@taorl/%s', async (name) => {
    expect((await driverBundle(name)).length).toBeGreaterThan(1000);
  });
});

const executablePath = chromiumForTest('the browser smoke test');

describe.skipIf(executablePath === null)(
  executablePath === null
    ? `portable entries in headless Chromium (skipped: ${NO_CHROMIUM})`
    : 'portable entries in headless Chromium',
  () => {
    let browser: Browser;
    beforeAll(async () => {
      browser = await chromium.launch({ executablePath: executablePath as string, args: CHROMIUM_ARGS });
    });
    afterAll(() => browser?.close());

    /** Runs one driver's bundle in a blank page; the page must log no error and load nothing. */
    async function inBrowser<Name extends DriverName>(name: Name): Promise<DriverResult<Name>> {
      const code = await driverBundle(name);
      const page = await browser.newPage();
      const problems: string[] = [];
      page.on('pageerror', (error) => problems.push(error.message));
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(message.text());
      });
      page.on('request', (request) => problems.push(`requested ${request.url()}`));
      try {
        await page.setContent('<!doctype html><title>taorl smoke</title>');
        await page.addScriptTag({ content: code });
        const result = await page.evaluate(
          () => (globalThis as unknown as { __taorlSmoke: Promise<unknown> }).__taorlSmoke,
        );
        expect(problems).toEqual([]);
        // The same driver in this Node process: the browser must compute exactly the same.
        expect(result).toEqual(JSON.parse(JSON.stringify(await drivers[name].run())));
        return result as DriverResult<Name>;
      } finally {
        await page.close();
      }
    }

    it('@taorl/eval grades real answers', async () => {
      const result = await inBrowser('eval');
      expect(result.equivalent).toMatchObject({ correct: true, extracted: '\\frac{1}{2}' });
      expect(result.different).toMatchObject({ correct: false, extracted: '3' });
      expect(result.extracted).toBe('\\sqrt{2}');
      expect(result.interval.equivalent).toBe(true);
      // pass@2 with 1 correct of 4: 1 - C(3,2)/C(4,2).
      expect(result.passAt2).toBeCloseTo(1 - 3 / 6, 12);
      expect(result.report).toMatchObject({ problems: 2, samplesPerProblem: 2, avgAtK: 0.25 });
      // Multiple choice and the code judge's comparisons run in the browser as in Node.
      const { problem, graded } = result.choice;
      expect(graded).toEqual({ correct: true, chosen: problem.goldLetter, rule: 'answer_phrase' });
      expect(result.stdout).toEqual({ equal: true });
      expect(result.bigInts).toBe(false);
    });

    it('@taorl/filter: the tool-aware filter, found by name, gives its verdicts', async () => {
      const result = await inBrowser('filter');
      expect(result.names).toContain('tool-aware');
      expect(result.keptIndices).toEqual([1, 2]);
      expect(result.dropped.map(({ index, reason }) => `${index}:${reason}`)).toEqual([
        '0:all-tool-calls-failed',
        '3:all-correct',
        '4:all-correct',
      ]);
    });

    it('@taorl/advantage: GRPO with the TAO shaper and RLOO, found by name, give advantages', async () => {
      const result = await inBrowser('advantage');
      expect(result.names).toEqual(expect.arrayContaining(['grpo', 'rloo']));
      const [high, low, middle] = result.sequence as [number, number, number];
      expect(high).toBeGreaterThan(0);
      expect(low).toBeLessThan(0);
      expect(high + low + middle).toBeCloseTo(0, 12);
      // Observation tokens (lossMask 0) get no advantage.
      for (const row of result.tokens) expect([row[2], row[3]]).toEqual([0, 0]);
      // RLOO: each reward minus the mean of the other two.
      expect(result.rloo).toEqual([1 - 0.25, 0 - 0.75, 0.5 - 0.5]);
      expect(result.shaping.shaper).toBe('tao');
    });

    it('@taorl/data: the embedded tokenizer and template, the arith-tool task, trajectory JSONL', async () => {
      const result = await inBrowser('data');
      expect(result.prompt).toContain(result.question);
      expect(result.decodedPrompt).toBe(result.prompt);
      expect(result.imEnd).toBe(1);
      expect(result.roundTrip).toBe(true);
      expect(result.inputIds.length).toBeGreaterThan(result.promptIds.length);
      expect(result.inputIds.slice(0, result.promptIds.length)).toEqual(result.promptIds);
      expect(result.lossMask).toContain(0);
    });

    it('@taorl/model: the tiny model samples and computes its logits as in Node; save says what it needs', async () => {
      const result = await inBrowser('model');
      expect(result.backend).toBe('cpu');
      expect(result.greedy.map((s) => s.tokens.length)).toEqual([6, 6]);
      expect(result.sampled.every((s) => s.logProbs.every((p) => p <= 0))).toBe(true);
      expect(result.saveError).toMatch(/no checkpoint store; in Node build it with '@taorl\/model\/node'/);
    });

    it('@taorl/rl: one TAO-RL step (rollouts, grading, filters, advantages, the update) as in Node', async () => {
      const result = await inBrowser('rl');
      expect(result.metrics).toMatchObject({
        reward: 0.5,
        trajectoriesKept: 4,
        estimator: 'grpo',
        shaper: 'tao',
      });
      expect(result.metrics.filterDrops).toEqual({});
      expect(result.trained).toHaveLength(1);
      expect(result.trained[0]!.trajectories).toBe(4);
      expect(result.timed).toBe(true);
    });

    it('@taorl/rollout: a two-turn tool rollout over a vLLM-style answer, token integrity checked', async () => {
      const result = await inBrowser('rollout');
      expect(result.endings).toMatchObject({ eos: 1, length: 0, no_tool_call: 0 });
      expect(result.text).toBe('```python\nprint(6*7)\n```\n```output\n42\n```\nA: \\boxed{42}<|im_end|>');
      expect(result.toolCalls).toEqual([
        { status: 'ok', code: 'print(6*7)\n', startToken: 34, endToken: 42 },
      ]);
      expect(result.responseTokens - result.policyTokens).toBe(8);
    });
  },
);
