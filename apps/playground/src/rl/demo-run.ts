import { type RlStepMetrics, rlStep } from '@taorl/rl';
import { demoRlContext, type RlChoices, type RlParts } from './demo-rl';
import type { DemoTask } from './demo-task';
import { type HeldOut, heldOutAccuracy } from './held-out';

/**
 * What a run reports as it goes: each held-out evaluation (`step` 0 is the one before training, the run's last step
 * the one after) and each step's metrics line.
 */
export type RlEvent =
  | { type: 'held-out'; step: number; result: HeldOut }
  | { type: 'step'; metrics: RlStepMetrics };

/**
 * A run of the page: the choices, how many RL steps, how many held-out problems (0: no evaluation) and every how
 * many steps to evaluate them between the one before and the one after the run.
 */
export interface RlRunRequest {
  choices: RlChoices;
  steps: number;
  heldOut: number;
  heldOutEvery: number;
}

/**
 * The steps after which a run of `steps` steps evaluates held-out: 0 (before training), every `every` steps, and
 * the last step (after training) whether or not `every` divides it.
 */
export function heldOutSteps(steps: number, every: number): number[] {
  if (!Number.isSafeInteger(every) || every < 1)
    throw new Error(`heldOutEvery: ${every} is not a whole number of 1 or more`);
  const points = [0];
  for (let step = every; step < steps; step += every) points.push(step);
  if (steps > 0) points.push(steps);
  return points;
}

/**
 * `steps` RL steps of the demo's task on `parts.policy` (trained in place), a held-out evaluation before, every
 * `heldOutEvery` steps and after when asked; each result goes to `report` as it arrives. The page's worker and
 * the Node tests run this.
 */
export async function runDemoRl(
  task: DemoTask,
  parts: RlParts,
  request: RlRunRequest,
  report: (event: RlEvent) => void,
): Promise<RlStepMetrics[]> {
  const { context, updater } = demoRlContext(task, parts, request.choices);
  const evaluations = new Set(request.heldOut === 0 ? [] : heldOutSteps(request.steps, request.heldOutEvery));
  const evaluate = async (step: number) => {
    if (!evaluations.has(step)) return;
    const result = await heldOutAccuracy(task, parts, context, request.heldOut, request.choices.seed);
    report({ type: 'held-out', step, result });
  };
  const lines: RlStepMetrics[] = [];
  try {
    await context.sync.start(0);
    await evaluate(0);
    for (let step = 1; step <= request.steps; step++) {
      const metrics = await rlStep(context, step);
      lines.push(metrics);
      report({ type: 'step', metrics });
      await evaluate(step);
    }
  } finally {
    updater.dispose();
    await context.sync.close();
  }
  return lines;
}
