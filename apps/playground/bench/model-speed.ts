// Tokens/s of sampling and of one training step of the demo's model: in headless Chromium (the page's worker on
// tfjs wasm, threaded when the page is cross-origin isolated and on one thread when not) against Node (tfjs wasm,
// and tfjs-node where installed), in one run on one machine (docs/benchmarks/playground.md).
// Run: nice -n 5 pnpm bench apps/playground/bench/model-speed.ts [--policy DIR]   (DIR: an asset folder; default
// public/policy/ if written, else a fresh model of the demo's shape: the same shapes, so the same speed)
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { AdamW, initBackend } from '@taorl/grpo';
import type { TransformerPolicy } from '@taorl/model';
import { createTinyPolicy, loadPolicy } from '@taorl/model/node';
import { chromium } from 'playwright-core';
import { build, preview } from 'vite';
import { CHROMIUM_ARGS, findChromium, NO_CHROMIUM } from '../../../test/support/chromium';
import { DEMO_CONFIG, demoPrompts, demoTask, loadConfig, writeAsset } from '../scripts/demo-asset';
import { demoTokenizer, promptIds } from '../src/model/demo-prompts';
import type { WorkerSampling } from '../src/model/protocol';
import { trainStep } from '../src/model/train-step';
import { serveStatic } from '../test/static-server';
import { plainBatch, sequenceBatch } from './sequence-batch';

const ROWS = 8;
const RUNS = 3;
const LEARNING_RATE = 1e-4;
/** No stop id: every row samples maxNewTokens tokens, so each run does the same work. */
const SAMPLING: WorkerSampling = { maxNewTokens: 64, temperature: 0.7, seed: 1 };

const { values } = parseArgs({ options: { policy: { type: 'string' } } });
const executablePath = findChromium();
if (executablePath === null) throw new Error(NO_CHROMIUM);
const configFile = fileURLToPath(new URL('../vite.config.ts', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'taorl-playground-bench-'));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

interface Speed {
  setting: string;
  sampleSeconds: number;
  trainSeconds: number;
}

try {
  const site = join(work, 'site');
  await build({ configFile, logLevel: 'silent', build: { outDir: site, emptyOutDir: true } });
  const written = new URL('../public/policy', import.meta.url).pathname;
  let policyDir = values.policy ?? (existsSync(join(written, 'model.safetensors')) ? written : undefined);
  let asset = policyDir ?? 'a fresh model of the demo shape (seed 5)';
  if (policyDir === undefined) {
    const fresh = createTinyPolicy({ vocabSize: 259, maxPositionEmbeddings: 512, tokenShift: true, seed: 5 });
    policyDir = join(work, 'fresh-policy');
    await fresh.save(policyDir);
    fresh.dispose();
  } else asset = `${policyDir}`;
  const config = loadConfig(DEMO_CONFIG, []);
  const prompts = demoPrompts(config, ROWS);
  writeAsset(policyDir, join(site, 'policy'), prompts, demoTask(config));
  const { tokenizer, template } = demoTokenizer(259);
  const ids = prompts.map((prompt) => promptIds(prompt, tokenizer, template));
  // The training batch: the prompts with completions of the full length, fixed for every setting.
  const batch = sequenceBatch(
    ids,
    ids.map(() => ({ tokens: Array.from({ length: SAMPLING.maxNewTokens }, (_, i) => 97 + (i % 26)) })),
    tokenizer.padTokenId,
  );
  const trainTokens = ids.reduce((sum, prompt) => sum + prompt.length + SAMPLING.maxNewTokens - 1, 0);
  const sampledTokens = ROWS * SAMPLING.maxNewTokens;

  const isolated = await preview({
    configFile,
    logLevel: 'silent',
    build: { outDir: site },
    preview: { host: '127.0.0.1', port: 0, strictPort: false },
  });
  const plain = await serveStatic(site);
  const browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
  const speeds: Speed[] = [];
  for (const [setting, origin] of [
    ['Chromium, page worker, wasm', isolated.resolvedUrls?.local[0] ?? ''],
    ['Chromium, page worker, wasm (not isolated)', plain.origin],
  ] as const) {
    const page = await browser.newPage();
    await page.goto(origin);
    const state = page.locator('#model-state');
    await state.filter({ hasText: /^(ready|the model did not load)/ }).waitFor({ timeout: 300_000 });
    const described = (await state.textContent()) ?? '';
    if (!described.startsWith('ready')) throw new Error(`${setting}: ${described}`);
    const times = await page.evaluate(
      async ({ rows, runs, sampling, b, learningRate }) => {
        const model = window.taorlModel as NonNullable<typeof window.taorlModel>;
        const indexes = Array.from({ length: rows }, (_, i) => i);
        const sample: number[] = [];
        const train: number[] = [];
        for (let run = 0; run <= runs; run++) {
          const s = (await model.sample(indexes, sampling)).seconds;
          const t = (await model.train(b, learningRate)).seconds;
          // Run 0 warms up (kernels compiled, buffers allocated).
          if (run > 0) {
            sample.push(s);
            train.push(t);
          }
        }
        return { sample, train };
      },
      { rows: ROWS, runs: RUNS, sampling: SAMPLING, b: plainBatch(batch), learningRate: LEARNING_RATE },
    );
    const threads = described.includes('threaded') ? 'threaded' : 'one thread';
    speeds.push({
      setting: `${setting}, ${threads}`,
      sampleSeconds: median(times.sample),
      trainSeconds: median(times.train),
    });
    await page.close();
  }
  await browser.close();
  await new Promise((resolve) => isolated.httpServer.close(resolve));
  plain.server.close();

  /** The same runs in this process on `backend`, or why it cannot start. */
  async function inNode(backend: 'wasm' | 'node', setting: string): Promise<Speed | string> {
    const report = await initBackend({ prefer: [backend] }).catch((error: Error) => error.message);
    if (typeof report === 'string') return `${setting}: not measured (${report})`;
    const policy: TransformerPolicy = await loadPolicy(join(site, 'policy'));
    const optimizer = new AdamW(policy.trainableVariables());
    const sample: number[] = [];
    const train: number[] = [];
    for (let run = 0; run <= RUNS; run++) {
      let started = performance.now();
      await policy.generate(ids, SAMPLING);
      const s = (performance.now() - started) / 1000;
      started = performance.now();
      trainStep(policy, optimizer, batch, LEARNING_RATE);
      const t = (performance.now() - started) / 1000;
      if (run > 0) {
        sample.push(s);
        train.push(t);
      }
    }
    policy.dispose();
    return { setting, sampleSeconds: median(sample), trainSeconds: median(train) };
  }
  const nodeWasm = (await inNode('wasm', 'Node, tfjs wasm (one thread)')) as Speed;
  const nodeNative = await inNode('node', 'Node, tfjs-node (reference)');

  const load = loadavg().map((x) => x.toFixed(1));
  console.log(`policy: ${asset}; ${cpus().length} cores (${cpus()[0]?.model ?? '?'}); load average ${load}`);
  console.log(
    `sampling: ${ROWS} rows x ${SAMPLING.maxNewTokens} new tokens (${sampledTokens} tokens); training step: ` +
      `${ROWS} rows, ${trainTokens} tokens (forward + backward + AdamW); median of ${RUNS} runs after a warm-up\n`,
  );
  console.log(
    '| where | sampling tokens/s | vs Node wasm | training step s | training tokens/s | vs Node wasm |',
  );
  console.log('|---|---|---|---|---|---|');
  const rows = [...speeds, nodeWasm, ...(typeof nodeNative === 'string' ? [] : [nodeNative])];
  for (const { setting, sampleSeconds, trainSeconds } of rows) {
    const sampleRate = sampledTokens / sampleSeconds;
    const trainRate = trainTokens / trainSeconds;
    console.log(
      `| ${setting} | ${sampleRate.toFixed(0)} | ${(nodeWasm.sampleSeconds / sampleSeconds).toFixed(2)}x | ` +
        `${trainSeconds.toFixed(3)} | ${trainRate.toFixed(0)} | ${(nodeWasm.trainSeconds / trainSeconds).toFixed(2)}x |`,
    );
  }
  if (typeof nodeNative === 'string') console.log(`\n${nodeNative}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
