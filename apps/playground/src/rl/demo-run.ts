import { type RlStepMetrics, rlStep } from '@taorl/rl';
import { demoRlContext, type RlChoices, type RlParts } from './demo-rl';
import type { DemoTask } from './demo-task';
import { type HeldOut, heldOutAccuracy } from './held-out';

/** What a run reports as it goes: the held-out result before and after, and each step's metrics line. */
export type RlEvent =
  | { type: 'held-out'; when: 'before' | 'after'; result: HeldOut }
  | { type: 'step'; metrics: RlStepMetrics };

/** A run of the page: the choices, how many RL steps, and how many held-out problems (0: no evaluation). */
export interface RlRunRequest {
  choices: RlChoices;
  steps: number;
  heldOut: number;
}

/**
 * `steps` RL steps of the demo's task on `parts.policy` (trained in place), a held-out evaluation before and after
 * when asked; each result goes to `report` as it arrives. The page's worker and the Node tests run this.
 */
export async function runDemoRl(
  task: DemoTask,
  parts: RlParts,
  request: RlRunRequest,
  report: (event: RlEvent) => void,
): Promise<RlStepMetrics[]> {
  const { context, updater } = demoRlContext(task, parts, request.choices);
  const evaluate = async (when: 'before' | 'after') => {
    if (request.heldOut === 0) return;
    const result = await heldOutAccuracy(task, parts, context, request.heldOut, request.choices.seed);
    report({ type: 'held-out', when, result });
  };
  const lines: RlStepMetrics[] = [];
  try {
    await context.sync.start(0);
    await evaluate('before');
    for (let step = 1; step <= request.steps; step++) {
      const metrics = await rlStep(context, step);
      lines.push(metrics);
      report({ type: 'step', metrics });
    }
    await evaluate('after');
  } finally {
    updater.dispose();
    await context.sync.close();
  }
  return lines;
}
