import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { BackendChoice } from '@taorl/grpo';
import * as tf from '@tensorflow/tfjs';
import type { TransformerPolicy } from '../model/transformer-policy.js';
import type { GradientWorkerReply, GradientWorkerRequest, ShardReply } from './gradient-protocol.js';
import type { WeightedTokenBatch } from './token-batch.js';

interface PendingShard {
  resolve: (reply: ShardReply) => void;
  reject: (error: Error) => void;
}

interface WorkerThread {
  /** 1-based: shard 0 is the main thread's. */
  readonly number: number;
  readonly worker: Worker;
  /** Shard requests sent and not yet answered, oldest first (a worker answers in order). */
  readonly pending: PendingShard[];
}

/** The backend a worker starts: the one the main thread runs, so replicas compute exactly as the main policy. */
function workerBackend(): BackendChoice | readonly BackendChoice[] {
  const name = tf.getBackend();
  if (name === 'wasm' || name === 'cpu') return name;
  if (name === 'tensorflow') return ['node-gpu', 'node'];
  throw new Error(`SFT gradient workers: the tfjs backend "${name}" cannot be started in a worker thread`);
}

/**
 * Worker threads that compute SFT gradient shards on replicas of a policy (see gradient-worker-entry.ts). They
 * start on the first `shards` call from the policy's weights at that moment, and every later call first sends the
 * policy's current weights, so the replicas compute on exactly the main policy's weights whatever changed them
 * (the optimizer, or a caller restoring other weights between steps). A worker that fails or exits rejects the
 * pending call with its number and reason, and takes the others down with it: its replica may be out of step,
 * so the next call starts fresh workers instead.
 *
 * Idle workers do not keep the process alive (they are referenced only while a shard is in flight); `dispose`
 * terminates them.
 */
export class GradientWorkers {
  private threads: WorkerThread[] | null = null;
  private disposed = false;

  constructor(
    private readonly policy: TransformerPolicy,
    /** Worker threads, each computing one shard per call. */
    readonly count: number,
  ) {
    if (!Number.isInteger(count) || count < 1) {
      throw new RangeError(`GradientWorkers: count must be a positive integer, got ${count}`);
    }
  }

  /** The gradient of batches[i] on worker i + 1, all at once; at most `count` batches. */
  shards(batches: readonly WeightedTokenBatch[]): Promise<ShardReply[]> {
    if (this.disposed) return Promise.reject(new Error('SFT gradient workers are disposed'));
    if (batches.length > this.count) {
      return Promise.reject(
        new RangeError(`GradientWorkers: ${batches.length} shards for ${this.count} worker threads`),
      );
    }
    let threads = this.threads;
    if (threads === null) threads = this.start();
    else this.sendWeights(threads);
    return Promise.all(
      batches.map(
        (batch, i) =>
          new Promise<ShardReply>((resolve, reject) => {
            const thread = threads[i]!;
            thread.pending.push({ resolve, reject });
            thread.worker.ref();
            this.post(thread, { kind: 'shard', batch });
          }),
      ),
    );
  }

  /** Terminates the workers; a pending `shards` call rejects. Resolves once every thread has exited. */
  async dispose(): Promise<void> {
    this.disposed = true;
    await this.stop(new Error('SFT gradient workers were disposed during a step'));
  }

  private start(): WorkerThread[] {
    const script = workerScript();
    const { config, tensors } = this.policy.toCheckpoint();
    const threads = Array.from({ length: this.count }, (_, i): WorkerThread => {
      const worker = new Worker(script.source, { eval: script.eval, execArgv: script.execArgv });
      worker.unref();
      const thread: WorkerThread = { number: i + 1, worker, pending: [] };
      worker.on('message', (reply: GradientWorkerReply) => {
        if (reply.kind === 'failed') return this.fail(thread, reply.message);
        const pending = thread.pending.shift();
        if (thread.pending.length === 0) worker.unref();
        pending?.resolve(reply);
      });
      worker.on('error', (error) => this.fail(thread, error.message));
      worker.on('exit', (code) => this.fail(thread, `exited with code ${code}`));
      return thread;
    });
    this.threads = threads;
    const backend = workerBackend();
    for (const thread of threads) this.post(thread, { kind: 'start', backend, config, tensors });
    return threads;
  }

  /** The policy's current weights to every replica, which applies them before the next shard. */
  private sendWeights(threads: readonly WorkerThread[]): void {
    // Each worker gets its own structured-clone copy, which costs what a copy plus a transfer would (~2 MB for
    // the tiny model, about a millisecond).
    const values = this.policy.trainableVariables().map((variable) => variable.dataSync() as Float32Array);
    for (const thread of threads) this.post(thread, { kind: 'weights', values });
  }

  private post(thread: WorkerThread, request: GradientWorkerRequest): void {
    thread.worker.postMessage(request);
  }

  /** A worker of the current set failed: reject what is pending with its reason and stop the whole set. */
  private fail(thread: WorkerThread, reason: string): void {
    if (this.threads === null || !this.threads.includes(thread)) return;
    void this.stop(
      new Error(`SFT gradient worker thread ${thread.number} of ${this.count} failed: ${reason}`),
    );
  }

  private async stop(error: Error): Promise<void> {
    const threads = this.threads ?? [];
    this.threads = null;
    for (const thread of threads) for (const pending of thread.pending.splice(0)) pending.reject(error);
    await Promise.all(threads.map((thread) => thread.worker.terminate()));
  }
}

/**
 * The worker entry: the built dist/sft-gradient-worker.js next to the bundle, or, when running from the
 * TypeScript sources (tests, benchmarks), gradient-worker-entry.ts loaded through tsx's tsImport (a development
 * dependency of the repository) with sibling packages resolved to their sources, as the main thread does.
 */
function workerScript(): { source: string | URL; eval: boolean; execArgv?: string[] } {
  const here = import.meta.url;
  if (here.endsWith('.ts')) {
    const tsxApi = pathToFileURL(createRequire(here).resolve('tsx/esm/api')).href;
    const entry = new URL('./gradient-worker-entry.ts', here).href;
    const source = `import(${JSON.stringify(tsxApi)}).then((api) => api.tsImport(${JSON.stringify(entry)}, ${JSON.stringify(here)}))`;
    return { source, eval: true, execArgv: ['--conditions=@taorl/source'] };
  }
  const built = new URL('./sft-gradient-worker.js', here);
  if (!existsSync(fileURLToPath(built))) {
    throw new Error(`SFT gradient worker not found at ${fileURLToPath(built)}; rebuild @taorl/trainer`);
  }
  return { source: built, eval: false };
}
