import type { WeightedTokenBatch } from '@taorl/model';
import { type DemoPrompt, demoTokenizer, parseDemoPrompts, promptIds } from './model/demo-prompts';
import { type ModelClient, startModel } from './model/model-client';
import type { Sample, WorkerSampling } from './model/protocol';
import type { DemoTask } from './rl/demo-task';

// The demo's SFT policy on the page: loaded and sampled in a web worker, the page only renders.

/** What the tests and the speed bench call in the page: the worker's sampling of the asset's prompts, and training. */
export interface PlaygroundModel {
  promptIds(index: number): number[];
  sample(
    indexes: readonly number[],
    sampling: WorkerSampling,
  ): Promise<{ samples: Sample[]; seconds: number }>;
  /** A batch as JSON-like arrays, as a test or bench passes it into the page (`plainBatch`). */
  train(batch: PlainTokenBatch, learningRate: number): Promise<{ loss: number; seconds: number }>;
}

/** A WeightedTokenBatch as plain arrays: what Playwright's evaluate can carry into a page. */
export interface PlainTokenBatch {
  inputs: number[];
  targets: number[];
  mask: number[];
  weights: number[];
  shape: WeightedTokenBatch['shape'];
}

const typedBatch = (batch: PlainTokenBatch): WeightedTokenBatch => ({
  inputs: Int32Array.from(batch.inputs),
  targets: Int32Array.from(batch.targets),
  mask: Float32Array.from(batch.mask),
  weights: Float32Array.from(batch.weights),
  shape: batch.shape,
});

declare global {
  interface Window {
    taorlModel?: PlaygroundModel;
  }
}

async function fetchPrompts(url: string): Promise<DemoPrompt[]> {
  const response = await fetch(url).catch((error: Error) => {
    throw new Error(`${url}: could not be fetched (${error.message})`);
  });
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status} ${response.statusText}`);
  let json: unknown;
  try {
    json = await response.json();
  } catch {
    throw new Error(`${url}: not valid JSON`);
  }
  return parseDemoPrompts(json, url);
}

function describeWasm({ wasm, parameters }: ModelClient): string {
  const threads = wasm.threads ? 'threaded' : `one thread (${wasm.singleThreadReason})`;
  return `ready: ${parameters.toLocaleString('en')} parameters on tfjs wasm, ${threads}${wasm.simd ? ', SIMD' : ''}`;
}

/**
 * Loads the policy asset into the worker and wires the sample button, which samples as the demo's rollouts do (the
 * asset's `task`: task.json, or why it did not load); failures are shown, naming the file. The loaded model, or
 * null when it did not load.
 */
export async function startModelPanel(
  element: <T extends HTMLElement>(id: string) => T,
  task: Promise<DemoTask | Error>,
): Promise<ModelClient | null> {
  const [state, seed, button, settings, question, text, stats] = [
    element('model-state'),
    element<HTMLInputElement>('seed'),
    element<HTMLButtonElement>('sample'),
    element('sample-settings'),
    element('sample-question'),
    element('sample-text'),
    element('sample-stats'),
  ];
  const policyURL = new URL('policy/', document.baseURI).href;
  try {
    const [prompts, model] = await Promise.all([
      fetchPrompts(new URL('prompts.json', policyURL).href),
      startModel(policyURL, new URL('tfjs-wasm/', document.baseURI).href),
    ]);
    const { tokenizer, template } = demoTokenizer(model.vocabSize);
    const ids = (index: number) => {
      const prompt = prompts[index];
      if (prompt === undefined) throw new Error(`no prompt ${index}: prompts.json holds ${prompts.length}`);
      return promptIds(prompt, tokenizer, template);
    };
    window.taorlModel = {
      promptIds: (index) => [...ids(index)],
      sample: (indexes, sampling) => model.sample(indexes.map(ids), sampling),
      train: (batch, learningRate) => model.train(typedBatch(batch), learningRate),
    };
    state.textContent = describeWasm(model);
    const demo = await task;
    if (demo instanceof Error) {
      settings.textContent = `sampling is off: ${demo.message}`;
      settings.className = 'failed';
      return model;
    }
    const { sampling: rolloutSampling, maxResponseTokens } = demo.rollout;
    settings.textContent =
      `temperature ${rolloutSampling.temperature}, at most ${maxResponseTokens} new tokens: ` +
      "the demo's rollout sampling, from policy/task.json";
    button.disabled = false;
    button.addEventListener('click', async () => {
      const value = Number(seed.value);
      if (seed.value === '' || !Number.isSafeInteger(value) || value < 0) {
        stats.textContent = `seed: ${JSON.stringify(seed.value)} is not a whole number of 0 or more`;
        return;
      }
      button.disabled = true;
      const index = value % prompts.length;
      const prompt = prompts[index] as DemoPrompt;
      question.textContent = `${prompt.messages.at(-1)?.content ?? ''} (reference: ${prompt.answer})`;
      text.textContent = 'sampling in the worker…';
      stats.textContent = '';
      try {
        const sampling = {
          ...rolloutSampling,
          maxNewTokens: maxResponseTokens,
          seed: value,
          stopTokenIds: [tokenizer.eosTokenId],
        };
        const { samples, seconds } = await model.sample([ids(index)], sampling);
        const [sample] = samples as [Sample];
        text.textContent = tokenizer.decode(Int32Array.from(sample.tokens));
        stats.textContent = `${sample.tokens.length} tokens in ${seconds.toFixed(2)} s (${sample.finishReason})`;
      } catch (error) {
        text.textContent = `sampling failed: ${(error as Error).message}`;
      }
      button.disabled = false;
    });
    return model;
  } catch (error) {
    state.textContent = `the model did not load: ${(error as Error).message}`;
    state.className = 'failed';
    return null;
  }
}
