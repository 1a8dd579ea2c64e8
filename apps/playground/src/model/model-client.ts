import type { FromWorker, Sample, ToWorker, WasmInfo, WorkerSampling } from './protocol';

/** The page's handle on the model worker: one load, then any number of sampling calls, answered in order. */
export interface ModelClient {
  wasm: WasmInfo;
  parameters: number;
  vocabSize: number;
  sample(
    prompts: readonly Int32Array[],
    sampling: WorkerSampling,
  ): Promise<{ samples: Sample[]; seconds: number }>;
}

/** Starts the worker, which starts tfjs's wasm backend (files at `wasmURL`) and loads the policy at `policyURL`. */
export function startModel(policyURL: string, wasmURL: string): Promise<ModelClient> {
  const worker = new Worker(new URL('./worker.ts', import.meta.url), { type: 'module' });
  const send = (message: ToWorker) => worker.postMessage(message);
  const pending = new Map<
    number,
    { resolve: (v: { samples: Sample[]; seconds: number }) => void; reject: (e: Error) => void }
  >();
  let nextId = 0;
  return new Promise((resolve, reject) => {
    worker.onerror = (event) => reject(new Error(`the model worker failed: ${event.message}`));
    worker.onmessage = ({ data }: MessageEvent<FromWorker>) => {
      if (data.type === 'ready') {
        resolve({
          wasm: data.wasm,
          parameters: data.parameters,
          vocabSize: data.vocabSize,
          sample(prompts, sampling) {
            const id = nextId++;
            send({ type: 'sample', id, prompts: prompts.map((prompt) => [...prompt]), sampling });
            return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
          },
        });
      } else if (data.type === 'samples') {
        pending.get(data.id)?.resolve({ samples: data.samples, seconds: data.seconds });
        pending.delete(data.id);
      } else if (data.id === undefined) {
        worker.terminate();
        reject(new Error(data.message));
      } else {
        pending.get(data.id)?.reject(new Error(data.message));
        pending.delete(data.id);
      }
    };
    send({ type: 'load', policyURL, wasmURL });
  });
}
