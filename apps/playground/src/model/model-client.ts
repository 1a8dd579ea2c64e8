import type { WeightedTokenBatch } from '@taorl/model';
import type { RlEvent, RlRunRequest } from '../rl/demo-run';
import type { FromWorker, Sample, ToWorker, WasmInfo, WorkerSampling } from './protocol';

/** The page's handle on the model worker: one load, then sampling and training calls, each answered by its id. */
export interface ModelClient {
  wasm: WasmInfo;
  parameters: number;
  vocabSize: number;
  sample(
    prompts: readonly Int32Array[],
    sampling: WorkerSampling,
  ): Promise<{ samples: Sample[]; seconds: number }>;
  /** One training step in the worker (`trainStep`): the loss and the step's seconds. */
  train(batch: WeightedTokenBatch, learningRate: number): Promise<{ loss: number; seconds: number }>;
  /**
   * An RL run in the worker on the loaded policy (`runDemoRl`), the tool's Python in web workers of the model's
   * worker (pyodide's files at `pyodideURL`, absolute); each event goes to `onEvent` as it arrives, with when the
   * worker posted it (`wallClock`).
   */
  rl(
    request: RlRunRequest,
    pyodideURL: string,
    onEvent: (event: RlEvent, postedAt: number) => void,
  ): Promise<{ seconds: number }>;
}

type Answer = Extract<FromWorker, { type: 'samples' | 'trained' | 'rl-done' }>;

/** Starts the worker, which starts tfjs's wasm backend (files at `wasmURL`) and loads the policy at `policyURL`. */
export function startModel(policyURL: string, wasmURL: string): Promise<ModelClient> {
  // Checked here, before the worker imports tfjs's wasm backend, whose module fails to load without it.
  if (typeof WebAssembly !== 'object') {
    return Promise.reject(
      new Error("this browser has no WebAssembly: the model runs on tfjs's wasm backend, which needs it"),
    );
  }
  const worker = new Worker(new URL('./worker.ts', import.meta.url), { type: 'module' });
  const pending = new Map<number, { resolve: (answer: Answer) => void; reject: (error: Error) => void }>();
  /** The event listeners of the RL runs under way, by id. */
  const runs = new Map<number, (event: RlEvent, postedAt: number) => void>();
  let nextId = 0;
  const call = (message: (id: number) => ToWorker): Promise<Answer> => {
    const id = nextId++;
    worker.postMessage(message(id));
    return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
  };
  return new Promise((resolve, reject) => {
    worker.onerror = (event) =>
      reject(
        new Error(`the model worker failed: ${event.message || 'no message (see the browser console)'}`),
      );
    worker.onmessage = ({ data }: MessageEvent<FromWorker>) => {
      if (data.type === 'ready') {
        resolve({
          wasm: data.wasm,
          parameters: data.parameters,
          vocabSize: data.vocabSize,
          async sample(prompts, sampling) {
            const answer = await call((id) => ({
              type: 'sample',
              id,
              prompts: prompts.map((p) => [...p]),
              sampling,
            }));
            if (answer.type !== 'samples')
              throw new Error(`the model worker answered ${answer.type} to sample`);
            return { samples: answer.samples, seconds: answer.seconds };
          },
          async train(batch, learningRate) {
            const answer = await call((id) => ({ type: 'train', id, batch, learningRate }));
            if (answer.type !== 'trained')
              throw new Error(`the model worker answered ${answer.type} to train`);
            return { loss: answer.loss, seconds: answer.seconds };
          },
          async rl(request, pyodideURL, onEvent) {
            const answer = await call((id) => {
              runs.set(id, onEvent);
              return { type: 'rl', id, request, pyodideURL };
            });
            if (answer.type !== 'rl-done') throw new Error(`the model worker answered ${answer.type} to rl`);
            return { seconds: answer.seconds };
          },
        });
      } else if (data.type === 'error' && data.id === undefined) {
        worker.terminate();
        reject(new Error(data.message));
      } else if (data.type === 'rl-event') {
        runs.get(data.id)?.(data.event, data.postedAt);
      } else if (data.id !== undefined) {
        runs.delete(data.id);
        const waiting = pending.get(data.id);
        pending.delete(data.id);
        if (data.type === 'error') waiting?.reject(new Error(data.message));
        else waiting?.resolve(data);
      }
    };
    worker.postMessage({ type: 'load', policyURL, wasmURL } satisfies ToWorker);
  });
}
