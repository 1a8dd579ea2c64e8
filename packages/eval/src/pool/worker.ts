import { parentPort } from 'node:worker_threads';
import { grade } from '../grade';
import type { BatchRequest, TaskReply } from './protocol';

// Worker-thread entry of the grader pool: announces readiness (so start-up time never counts against a task's
// time limit), then grades each task of a batch and replies per task.
parentPort?.postMessage('ready');
parentPort?.on('message', (request: BatchRequest) => {
  request.tasks.forEach((task, index) => {
    const reply: TaskReply = {
      batch: request.batch,
      index,
      result: grade(task.response, task.gold, task.options),
    };
    parentPort?.postMessage(reply);
  });
});
