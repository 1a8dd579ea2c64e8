import { AdamW } from '@taorl/grpo';
import type { TransformerPolicy } from '@taorl/model';
import { createSandbox, getToolFormat, type PyodideSandbox } from '@taorl/sandbox/browser';
import * as tf from '@tensorflow/tfjs';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import { runDemoRl } from '../rl/demo-run';
import { fetchDemoTask } from '../rl/fetch-task';
import { demoTokenizer } from './demo-prompts';
import { fetchPolicy } from './fetch-policy';
import { type FromWorker, type ToWorker, type WasmInfo, wallClock } from './protocol';
import { trainStep } from './train-step';

// The model's worker: tfjs on its wasm backend (threaded where the page is cross-origin isolated), the policy
// asset loaded with @taorl/model's portable entry, sampling off the page's main thread.

const post = (message: FromWorker) => self.postMessage(message);
let policy: TransformerPolicy | null = null;
let policyURL = '';
/** The tool's Python sandbox of RL runs (its interpreters in web workers of this worker), made at the first. */
let sandbox: PyodideSandbox | null = null;
/** The optimizer of `train` steps, made at the first (its moments follow the policy from then on). */
let optimizer: AdamW | null = null;

async function startWasm(wasmURL: string): Promise<WasmInfo> {
  setWasmPaths(wasmURL);
  if (!(await tf.setBackend('wasm'))) throw new Error("tfjs's wasm backend failed to start");
  await tf.ready();
  const threads = (await tf.env().getAsync('WASM_HAS_MULTITHREAD_SUPPORT')) === true;
  const simd = (await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT')) === true;
  const singleThreadReason = threads
    ? ''
    : self.crossOriginIsolated
      ? 'this browser gives WebAssembly no threads'
      : 'the page is not cross-origin isolated (serve it with the headers Cross-Origin-Opener-Policy: ' +
        'same-origin and Cross-Origin-Embedder-Policy: require-corp for SharedArrayBuffer)';
  return { threads, simd, singleThreadReason };
}

self.onmessage = async ({ data }: MessageEvent<ToWorker>) => {
  if (data.type === 'load') {
    try {
      const wasm = await startWasm(data.wasmURL);
      policy = await fetchPolicy(data.policyURL);
      policyURL = data.policyURL;
      const parameters = policy.trainableVariables().reduce((sum, variable) => sum + variable.size, 0);
      post({ type: 'ready', wasm, parameters, vocabSize: policy.vocabSize });
    } catch (error) {
      post({ type: 'error', message: (error as Error).message });
    }
    return;
  }
  try {
    if (policy === null) throw new Error('the policy is not loaded yet');
    const started = performance.now();
    const seconds = () => (performance.now() - started) / 1000;
    if (data.type === 'rl') {
      const task = await fetchDemoTask(policyURL);
      sandbox ??= await createSandbox({ backend: 'pyodide', indexURL: data.pyodideURL });
      const parts = {
        policy,
        ...demoTokenizer(policy.vocabSize),
        sandbox,
        format: getToolFormat(task.tool.format),
      };
      await runDemoRl(task, parts, data.request, (event) =>
        post({ type: 'rl-event', id: data.id, event, postedAt: wallClock() }),
      );
      post({ type: 'rl-done', id: data.id, seconds: seconds() });
      return;
    }
    if (data.type === 'train') {
      optimizer ??= new AdamW(policy.trainableVariables());
      const loss = trainStep(policy, optimizer, data.batch, data.learningRate);
      post({ type: 'trained', id: data.id, loss, seconds: seconds() });
      return;
    }
    const sequences = await policy.generate(
      data.prompts.map((prompt) => Int32Array.from(prompt)),
      data.sampling,
    );
    const samples = sequences.map(({ tokens, logProbs, finishReason }) => ({
      tokens: [...tokens],
      logProbs: [...logProbs],
      finishReason,
    }));
    post({ type: 'samples', id: data.id, samples, seconds: seconds() });
  } catch (error) {
    post({ type: 'error', id: data.id, message: (error as Error).message });
  }
};
