import { type MessagePort, parentPort } from 'node:worker_threads';
import { initBackend } from '@taorl/grpo';
import { TransformerPolicy } from '@taorl/model';
import * as tf from '@tensorflow/tfjs';
import { importPluginFiles } from '../plugins/plugin-modules.js';
import {
  type FaultMode,
  INJECTED_EXIT_CODE,
  type ReplicaReply,
  type ReplicaRequest,
} from './replica-protocol.js';

/** A job's result and the buffers to hand over to the main thread instead of copying them. */
export interface JobOutput<Result> {
  result: Result;
  transfer?: readonly ArrayBuffer[];
}

/** Runs one job on the replica. */
export type JobRunner<Job, Result> = (job: Job) => Promise<JobOutput<Result>>;

/**
 * The worker-thread side of a `ReplicaWorkers` pool: starts its own tfjs backend (wasm runs on one thread, so each
 * worker adds a core), holds a replica of the policy that the main thread keeps identical by sending the weights,
 * and answers each job with `prepare`'s runner. Messages are handled strictly in order, so a job always sees the
 * weights sent before it.
 *
 * @param entry the worker's file, for the error when it is not run as a worker thread
 * @param prepare called once after the replica is built, with the pool's setup: returns the job runner
 */
export function serveReplica<Setup, Job, Result>(
  entry: string,
  prepare: (replica: TransformerPolicy, setup: Setup) => Promise<JobRunner<Job, Result>>,
): void {
  if (parentPort === null) throw new Error(`${entry}: run it as a worker thread (see replica-workers.ts)`);
  const port: MessagePort = parentPort;
  let variables: tf.Variable[] = [];
  let runJob: JobRunner<Job, Result> | null = null;
  let fault: FaultMode | null = null;

  async function handle(request: ReplicaRequest<Setup, Job>): Promise<void> {
    if (request.kind === 'start') {
      await importPluginFiles(request.plugins, request.pluginLoadTimeoutMs);
      await initBackend({ prefer: request.backend });
      const replica = new TransformerPolicy({ config: request.config, tensors: request.tensors });
      variables = replica.trainableVariables();
      runJob = await prepare(replica, request.setup);
      return;
    }
    if (request.kind === 'fault') {
      fault = request.mode;
      return;
    }
    if (runJob === null) throw new Error(`received "${request.kind}" before "start"`);
    if (request.kind === 'weights') {
      if (request.values.length !== variables.length) {
        throw new Error(`received ${request.values.length} weight arrays for ${variables.length} variables`);
      }
      tf.tidy(() => {
        variables.forEach((variable, i) => {
          variable.assign(tf.tensor(request.values[i]!, variable.shape));
        });
      });
      return;
    }
    if (fault === 'exit') process.exit(INJECTED_EXIT_CODE);
    if (fault === 'throw') throw new Error('injected fault (test hook)');
    const { result, transfer = [] } = await runJob(request.job);
    const reply: ReplicaReply<Result> = { kind: 'done', result };
    port.postMessage(reply, [...new Set(transfer)]);
  }

  // After a failure the replica may be out of step with the main thread: report it and handle nothing more (the
  // main thread terminates every worker and starts fresh ones from its current weights).
  let queue: Promise<void> = Promise.resolve();
  let failed = false;
  port.on('message', (request: ReplicaRequest<Setup, Job>) => {
    queue = queue.then(async () => {
      if (failed) return;
      try {
        await handle(request);
      } catch (error) {
        failed = true;
        const message = error instanceof Error ? error.message : String(error);
        const reply: ReplicaReply<Result> = { kind: 'failed', message };
        port.postMessage(reply);
      }
    });
  });
}
