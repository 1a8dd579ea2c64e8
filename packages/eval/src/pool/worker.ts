import { parentPort, workerData } from 'node:worker_threads';
import { type GradeResult, grade } from '../grade';
import type { BatchReply, BatchRequest } from './protocol';

// Worker-thread entry of the grader pool. It announces readiness (start-up time never counts against a task),
// marks each task and its start time in the shared progress array before grading it, and replies once per batch.
const progress = new Float64Array(workerData as SharedArrayBuffer);
parentPort?.postMessage('ready');
parentPort?.on('message', (request: BatchRequest) => {
  progress[0] = request.batch;
  const results: GradeResult[] = request.tasks.map((task, index) => {
    progress[2] = Date.now();
    progress[1] = index;
    return grade(task.response, task.gold, task.options);
  });
  const reply: BatchReply = { batch: request.batch, results };
  parentPort?.postMessage(reply);
});
