import { parentPort } from 'node:worker_threads';
import { grade } from '../grade';
import type { BatchRequest, TaskReply } from './protocol';

// Worker-thread entry of the grader pool: grades each task of a batch and replies per task.
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
