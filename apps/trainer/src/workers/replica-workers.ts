import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { BackendChoice } from '@taorl/grpo';
import type { TransformerPolicy } from '@taorl/model';
import * as tf from '@tensorflow/tfjs';
import { pluginsForWorkers } from '../plugins/plugin-modules.js';
import type { FaultMode, ReplicaReply, ReplicaRequest } from './replica-protocol.js';

/** A worker thread's script: its TypeScript source and its bundle in dist/ (see tsup.config.ts). */
export interface WorkerEntry {
  /** The entry module's source (`new URL('./x-entry.ts', import.meta.url)` next to the pool's module). */
  source: URL;
  /** The bundle's file name next to the trainer's dist/index.js, e.g. 'policy-worker.js'. */
  built: string;
}

export interface ReplicaWorkersOptions<Setup> {
  /** What the threads are called in errors, e.g. 'SFT gradient worker'. */
  label: string;
  entry: WorkerEntry;
  /** Sent with the start message to the entry's `prepare` (see replica-host.ts). */
  setup: Setup;
}

interface PendingJob<Result> {
  resolve: (result: Result) => void;
  reject: (error: Error) => void;
}

interface WorkerThread<Result> {
  /** 1-based, as errors name it. */
  readonly number: number;
  readonly worker: Worker;
  /** Jobs sent and not yet answered, oldest first (a worker answers in order). */
  readonly pending: PendingJob<Result>[];
}

/** The backend a worker starts: the one the main thread runs, so replicas compute exactly as the main policy. */
function workerBackend(label: string): BackendChoice | readonly BackendChoice[] {
  const name = tf.getBackend();
  if (name === 'wasm' || name === 'cpu') return name;
  if (name === 'tensorflow') return ['node-gpu', 'node'];
  throw new Error(`${label}s: the tfjs backend "${name}" cannot be started in a worker thread`);
}

/**
 * Worker threads that each hold a replica of a policy on their own tfjs backend and run jobs on it (SFT gradient
 * shards, rollout generation; the worker side is replica-host.ts). `syncWeights` starts them from the policy's
 * weights at that moment, and every later call sends the policy's current weights, so the replicas compute on
 * exactly the main policy's weights whatever changed them (an optimizer, or a caller restoring other weights).
 * Each thread first imports the plug-in modules this process loaded (loadPluginModules), so that a plug-in
 * registered there is found by name on the thread too.
 *
 * A worker that fails or exits rejects every pending job of every thread with its number and reason, and takes
 * the others down with it: its replica may be out of step, so jobs are refused until the next `syncWeights`
 * starts fresh workers. Idle workers do not keep the process alive (a thread is referenced only while a job is in
 * flight); `dispose` terminates them.
 */
export class ReplicaWorkers<Setup, Job, Result> {
  private threads: WorkerThread<Result>[] | null = null;
  private stopped: Error | null = null;
  private disposed = false;
  /** Test hook: faults to inject into threads that have not started yet. */
  private readonly faults = new Map<number, FaultMode>();

  constructor(
    private readonly policy: TransformerPolicy,
    /** Worker threads. */
    readonly count: number,
    private readonly options: ReplicaWorkersOptions<Setup>,
  ) {
    if (!Number.isInteger(count) || count < 1) {
      throw new RangeError(`${options.label}s: count must be a positive integer, got ${count}`);
    }
  }

  /**
   * Brings every replica to the policy's current weights before the jobs that follow: starts the threads (on
   * first use, or after a failure stopped them), else sends the weights.
   */
  syncWeights(): void {
    if (this.disposed) throw new Error(`${this.options.label}s are disposed`);
    if (this.threads === null) this.start();
    else this.sendWeights(this.threads);
  }

  /** Runs a job on thread `index` (0-based) after whatever was sent to it before. */
  run(index: number, job: Job): Promise<Result> {
    const threads = this.threads;
    if (threads === null) {
      return Promise.reject(
        this.stopped ?? new Error(`${this.options.label}s have not started: call syncWeights first`),
      );
    }
    const thread = threads[index];
    if (thread === undefined) {
      return Promise.reject(
        new RangeError(`${this.options.label}s: no thread ${index + 1} of ${this.count}`),
      );
    }
    return new Promise<Result>((resolve, reject) => {
      thread.pending.push({ resolve, reject });
      thread.worker.ref();
      this.post(thread, { kind: 'job', job });
    });
  }

  /** Test hook: thread `index`'s next job fails as `mode` says (an exception, or the thread exiting). */
  injectFault(index: number, mode: FaultMode): void {
    const thread = this.threads?.[index];
    if (thread === undefined) this.faults.set(index, mode);
    else this.post(thread, { kind: 'fault', mode });
  }

  /** Terminates the workers; pending jobs reject. Resolves once every thread has exited. */
  async dispose(): Promise<void> {
    this.disposed = true;
    await this.stop(new Error(`${this.options.label}s were disposed while a job ran`));
  }

  private start(): void {
    const { label, entry, setup } = this.options;
    const script = workerScript(entry, label);
    const { config, tensors } = this.policy.toCheckpoint();
    const threads = Array.from({ length: this.count }, (_, i): WorkerThread<Result> => {
      const worker = new Worker(script.source, { eval: script.eval, execArgv: script.execArgv });
      worker.unref();
      const thread: WorkerThread<Result> = { number: i + 1, worker, pending: [] };
      worker.on('message', (reply: ReplicaReply<Result>) => {
        if (reply.kind === 'failed') return this.fail(thread, reply.message);
        const pending = thread.pending.shift();
        if (thread.pending.length === 0) worker.unref();
        pending?.resolve(reply.result);
      });
      worker.on('error', (error) => this.fail(thread, error.message));
      worker.on('exit', (code) => this.fail(thread, `exited with code ${code}`));
      return thread;
    });
    this.threads = threads;
    this.stopped = null;
    const backend = workerBackend(label);
    const { plugins, timeoutMs: pluginLoadTimeoutMs } = pluginsForWorkers();
    threads.forEach((thread, i) => {
      this.post(thread, { kind: 'start', backend, config, tensors, plugins, pluginLoadTimeoutMs, setup });
      const fault = this.faults.get(i);
      if (fault !== undefined) this.post(thread, { kind: 'fault', mode: fault });
    });
    this.faults.clear();
  }

  private sendWeights(threads: readonly WorkerThread<Result>[]): void {
    // Each worker gets its own structured-clone copy, which costs what a copy plus a transfer would (~2 MB for
    // the tiny model, about a millisecond).
    const values = this.policy.trainableVariables().map((variable) => variable.dataSync() as Float32Array);
    for (const thread of threads) this.post(thread, { kind: 'weights', values });
  }

  private post(thread: WorkerThread<Result>, request: ReplicaRequest<Setup, Job>): void {
    thread.worker.postMessage(request);
  }

  /** A worker of the current set failed: reject what is pending with its reason and stop the whole set. */
  private fail(thread: WorkerThread<Result>, reason: string): void {
    if (this.threads === null || !this.threads.includes(thread)) return;
    void this.stop(
      new Error(`${this.options.label} thread ${thread.number} of ${this.count} failed: ${reason}`),
    );
  }

  private async stop(error: Error): Promise<void> {
    const threads = this.threads ?? [];
    this.threads = null;
    this.stopped = error;
    for (const thread of threads) for (const pending of thread.pending.splice(0)) pending.reject(error);
    await Promise.all(threads.map((thread) => thread.worker.terminate()));
  }
}

/**
 * The worker's script: its bundle next to the trainer's, or, when running from the TypeScript sources (tests,
 * benchmarks), the entry loaded through tsx's tsImport (a development dependency of the repository) with sibling
 * packages resolved to their sources, as the main thread does.
 */
function workerScript(
  entry: WorkerEntry,
  label: string,
): { source: string | URL; eval: boolean; execArgv?: string[] } {
  const here = import.meta.url;
  if (here.endsWith('.ts')) {
    const tsxApi = pathToFileURL(createRequire(here).resolve('tsx/esm/api')).href;
    const source = `import(${JSON.stringify(tsxApi)}).then((api) => api.tsImport(${JSON.stringify(entry.source.href)}, ${JSON.stringify(here)}))`;
    return { source, eval: true, execArgv: ['--conditions=@taorl/source'] };
  }
  const built = new URL(`./${entry.built}`, here);
  if (!existsSync(fileURLToPath(built))) {
    throw new Error(`${label} not found at ${fileURLToPath(built)}; rebuild @taorl/trainer`);
  }
  return { source: built, eval: false };
}
