import type { RlStepContext } from '@taorl/rl';
import { deriveSeed, rolloutAndGrade, samplesOf } from '@taorl/rollout';
import { demoProblems, type RlParts } from './demo-rl';
import type { DemoTask } from './demo-task';

/** A held-out evaluation's result: the share answered correctly and the tool calls per answer. */
export interface HeldOut {
  problems: number;
  accuracy: number;
  toolCallsPerAnswer: number;
}

/**
 * The policy on the first `count` held-out problems of the demo's task for `seed` (the test split `taorl rl`
 * evaluates on), one greedy answer each, rolled out with the tool and graded by @taorl/eval (rolloutAndGrade).
 */
export async function heldOutAccuracy(
  task: DemoTask,
  parts: RlParts,
  context: Pick<RlStepContext, 'policy' | 'tokenizer' | 'tools'>,
  count: number,
  seed: number,
): Promise<HeldOut> {
  const problems = demoProblems(task, parts, 'test', count, deriveSeed(seed, 'test-problems'));
  const { trajectories } = await rolloutAndGrade(context.policy, context, samplesOf(problems, 1), {
    ...task.rollout,
    sampling: { temperature: 0 },
    seed: deriveSeed(seed, 'playground-held-out'),
  });
  const correct = trajectories.filter((trajectory) => trajectory.correct).length;
  const calls = trajectories.reduce((sum, trajectory) => sum + trajectory.toolCalls.length, 0);
  return {
    problems: problems.length,
    accuracy: correct / Math.max(1, problems.length),
    toolCallsPerAnswer: calls / Math.max(1, problems.length),
  };
}
