import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deriveSeed } from '@taorl/rollout';
// The trainer's own resolution of the config (tool.instructions, the loss, the rollout options), from its entry.
import {
  loadConfig,
  overlongOptionsOf,
  rlComponents,
  rolloutOptionsOf,
  type TrainerConfig,
  toolInstructionsOf,
} from '@taorl/trainer';
import type { DemoPrompt } from '../src/model/demo-prompts';
import { POLICY_FILES } from '../src/model/fetch-policy';
import { demoQuestions } from '../src/rl/demo-rl';
import type { DemoTask } from '../src/rl/demo-task';

// The policy asset the page serves at policy/: the weights and config.json of a `taorl sft` policy folder, and
// prompts.json, held-out prompts of the demo's task as the trainer renders them.

/** The demo's config (`taorl demo`), whose SFT phase makes the asset. */
export const DEMO_CONFIG = new URL('../../trainer/configs/demo.yaml', import.meta.url).pathname;

/**
 * The first `count` held-out problems of `config`'s arith-tool task (the test split the trainer evaluates on, same
 * seed), each as the page's RL renders it (demoQuestions, equal to `taorl rl`'s: rl-step.test.ts): the system
 * message of tool.instructions (none in the demo), then the question.
 */
export function demoPrompts(config: TrainerConfig, count: number): DemoPrompt[] {
  const task = { mix: config.task.mix, system: systemMessage(config) };
  return demoQuestions(task, 'test', count, deriveSeed(config.seed, 'test-problems')).map(
    ({ problem, messages }) => ({ id: problem.id, messages, answer: problem.answer }),
  );
}

/** The system message the trainer puts before each prompt of `config` (tool.instructions), or null for none. */
function systemMessage(config: TrainerConfig): string | null {
  return toolInstructionsOf({ config, source: DEMO_CONFIG, toolTurns: null });
}

/**
 * The RL task of `config` as the page runs it (task.json): what `taorl rl` reads from the config for an arith-tool
 * run with local rollouts, resolved by the trainer's own code (the loss's options, the rollout options, the
 * overlong buffer in tokens, the system message).
 */
export function demoTask(config: TrainerConfig): DemoTask {
  const { rl, rollout, tool, task } = config;
  const name = (spec: { name: string; options: Record<string, unknown> }, field: string) => {
    if (Object.keys(spec.options).length > 0)
      throw new Error(`${field}: the page takes no options (${spec.name})`);
    return spec.name;
  };
  const options = rolloutOptionsOf(config);
  return {
    seed: config.seed,
    mix: task.mix,
    system: systemMessage(config),
    tool: {
      format: tool.format.name,
      timeoutMs: tool.timeoutMs,
      observationChars: tool.observationChars,
      maxInfraFailureRate: tool.maxInfraFailureRate,
    },
    rollout: { ...options, sampling: { ...options.sampling, temperature: rollout.temperature } },
    rl: {
      groups: rl.groups,
      groupSize: rl.groupSize,
      maxGenBatches: rl.maxGenBatches,
      learningRate: rl.learningRate,
      maxGradNorm: rl.maxGradNorm,
      microBatchRows: rl.microBatchRows,
      estimator: name(rl.estimator, 'rl.estimator'),
      shaper: name(rl.shaper, 'rl.shaper'),
      filters: rl.filters.map((spec, i) => name(spec, `rl.filters[${i}]`)),
      loss: rlComponents(config, DEMO_CONFIG).loss,
      overlong: overlongOptionsOf(config),
    },
  };
}

/** Writes the asset folder `out`: the policy files copied from `policyDir`, prompts.json and task.json. */
export function writeAsset(
  policyDir: string,
  out: string,
  prompts: readonly DemoPrompt[],
  task: DemoTask,
): void {
  mkdirSync(out, { recursive: true });
  for (const name of POLICY_FILES) copyFileSync(join(policyDir, name), join(out, name));
  writeFileSync(join(out, 'prompts.json'), `${JSON.stringify(prompts, null, 1)}\n`);
  writeFileSync(join(out, 'task.json'), `${JSON.stringify(task, null, 1)}\n`);
}

export { loadConfig };
