import { parentPort, workerData } from 'node:worker_threads';
import { type GradeResult, grade } from '../grade';
import type { BatchReply, BatchRequest } from './protocol';

// Worker-thread entry of the grader pool. It announces readiness (start-up time never counts against a task),
// marks each task in the shared progress array before grading it, and replies once per batch.
const progress = new Int32Array(workerData as SharedArrayBuffer);
parentPort?.postMessage('ready');
parentPort?.on('message', (request: BatchRequest) => {
  Atomics.store(progress, 0, request.batch);
  const results: GradeResult[] = request.tasks.map((task, index) => {
    Atomics.store(progress, 1, index);
    return grade(task.response, task.gold, task.options);
  });
  const reply: BatchReply = { batch: request.batch, results };
  parentPort?.postMessage(reply);
});
