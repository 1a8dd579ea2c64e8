import type { TransformerPolicy, WeightedTokenBatch } from '@taorl/model';
import type { RlEvent, RlRunRequest } from '../rl/demo-run';

/** How tfjs's wasm backend runs in the worker: its threads need cross-origin isolation (SharedArrayBuffer). */
export interface WasmInfo {
  threads: boolean;
  simd: boolean;
  /** Why the backend runs on one thread, when it does ('' when threaded). */
  singleThreadReason: string;
}

/** A sampled completion as it crosses to the page (plain arrays). */
export interface Sample {
  tokens: number[];
  logProbs: number[];
  finishReason: string;
}

/** The sampling parameters that cross to the worker (no functions: stop strings are not supported here). */
export type WorkerSampling = Omit<Parameters<TransformerPolicy['generate']>[1], 'decode' | 'stopStrings'>;

export type ToWorker =
  | { type: 'load'; policyURL: string; wasmURL: string }
  | { type: 'sample'; id: number; prompts: number[][]; sampling: WorkerSampling }
  | { type: 'train'; id: number; batch: WeightedTokenBatch; learningRate: number }
  /** An RL run on the loaded policy (trained in place); `pyodideURL`: where the page serves pyodide's files. */
  | { type: 'rl'; id: number; request: RlRunRequest; pyodideURL: string };

export type FromWorker =
  | { type: 'ready'; wasm: WasmInfo; parameters: number; vocabSize: number }
  | { type: 'samples'; id: number; samples: Sample[]; seconds: number }
  | { type: 'trained'; id: number; loss: number; seconds: number }
  /** `postedAt`: when the worker posted it, in ms on the clock every thread shares (`wallClock`). */
  | { type: 'rl-event'; id: number; event: RlEvent; postedAt: number }
  | { type: 'rl-done'; id: number; seconds: number }
  | { type: 'error'; id?: number; message: string };

/**
 * Now, in ms since the epoch, at the resolution of `performance.now`: a time the page's main thread and its workers
 * can compare (each one's `performance.now` counts from its own origin).
 */
export const wallClock = (): number => performance.timeOrigin + performance.now();
