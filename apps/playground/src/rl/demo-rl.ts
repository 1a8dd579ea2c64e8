import { getAdvantageEstimator, getEntropyShaper } from '@taorl/advantage';
import {
  type ArithProblem,
  arithMix,
  arithUserMessage,
  type ChatMessage,
  type ChatTemplate,
  generateArithProblems,
  type Tokenizer,
} from '@taorl/data';
import { composeFilters, getFilter } from '@taorl/filter';
import type { GrpoUpdater } from '@taorl/grpo';
import { grpoUpdate, type TransformerPolicy } from '@taorl/model';
import { codeBlockRule, localPolicySync, type Problem, type RlStepContext } from '@taorl/rl';
import { deriveSeed, sandboxToolEnvironment } from '@taorl/rollout';
import type { Sandbox, ToolFormat } from '@taorl/sandbox/browser';
import type { DemoTask } from './demo-task';

/** What the page lets a user change: the seed and the plug-ins by their registries' names. */
export interface RlChoices {
  seed: number;
  filters: readonly string[];
  shaper: string;
  estimator: string;
}

/**
 * The parts an RL step runs on: the policy and its tokenizer, the Python sandbox of the tool and the tool format
 * task.json names (getToolFormat of the sandbox's entry where the sandbox comes from: '@taorl/sandbox/browser' in
 * a page, '@taorl/sandbox' in Node).
 */
export interface RlParts {
  policy: TransformerPolicy;
  tokenizer: Tokenizer;
  template: ChatTemplate;
  sandbox: Sandbox;
  format: ToolFormat;
}

/** The demo's choices as task.json gives them. */
export function demoChoices(task: DemoTask): RlChoices {
  const { filters, shaper, estimator } = task.rl;
  return { seed: task.seed, filters, shaper, estimator };
}

/**
 * Questions of the demo's arith-tool task, drawn as `taorl rl` draws them for the same seed (the generator of
 * @taorl/data seeded with deriveSeed(seed, split's tag, ...)), each chat the task's system message (if any) then
 * the question: the RL steps', the held-out evaluation's and the asset's prompts.json.
 */
export function demoQuestions(
  task: Pick<DemoTask, 'mix' | 'system'>,
  split: 'train' | 'test',
  count: number,
  seed: number,
): { problem: ArithProblem; messages: ChatMessage[] }[] {
  const { kinds, levels } = arithMix(task.mix);
  return generateArithProblems({
    seed,
    split,
    count,
    ...(kinds === null ? {} : { kinds }),
    ...(levels === null ? {} : { levels }),
  }).map((problem) => {
    const question = { role: 'user' as const, content: arithUserMessage(problem) };
    const messages =
      task.system === null ? [question] : [{ role: 'system' as const, content: task.system }, question];
    return { problem, messages };
  });
}

/** demoQuestions as RL problems, each chat rendered by the chat template with the generation prompt. */
export function demoProblems(
  task: DemoTask,
  parts: Pick<RlParts, 'tokenizer' | 'template'>,
  split: 'train' | 'test',
  count: number,
  seed: number,
): Problem[] {
  return demoQuestions(task, split, count, seed).map(({ problem, messages }) => ({
    id: problem.id,
    promptIds: parts.tokenizer.encode(parts.template.render(messages, { addGenerationPrompt: true })),
    promptMessages: messages,
    gold: problem.answer,
    level: problem.level,
    requiredCalls: problem.steps.length,
  }));
}

/** Named plug-ins of a registry, each error naming the control that chose it. */
function named<T>(what: string, build: () => T): T {
  try {
    return build();
  } catch (error) {
    throw new Error(`${what}: ${(error as Error).message}`);
  }
}

/**
 * The RL step's context for the demo's task, from the published packages only: the policy samples its own
 * rollouts (local sync), the tool is `sandbox` through @taorl/rollout's tool environment in the task's format,
 * filters, shaper and estimator come from their registries by name, and the update is @taorl/model's grpoUpdate.
 * Dispose the updater when done.
 */
export function demoRlContext(
  task: DemoTask,
  parts: RlParts,
  choices: RlChoices,
): { context: RlStepContext; updater: GrpoUpdater } {
  const { rl, rollout, tool } = task;
  const { format } = parts;
  if (format.name !== tool.format) {
    throw new Error(`the tool format given is ${format.name}, task.json's tool.format is ${tool.format}`);
  }
  const filters = choices.filters.map((name) =>
    named(`filter ${JSON.stringify(name)}`, () => getFilter(name)),
  );
  const { update, updater } = grpoUpdate(parts.policy, parts.tokenizer, {
    learningRate: rl.learningRate,
    maxGradNorm: rl.maxGradNorm,
    loss: rl.loss,
    microBatchRows: rl.microBatchRows,
    temperature: rollout.sampling.temperature,
    oldLogProbs: 'rollout',
  });
  const context: RlStepContext = {
    policy: parts.policy,
    sync: localPolicySync(),
    tokenizer: parts.tokenizer,
    tools: sandboxToolEnvironment(format, parts.sandbox, {
      timeoutMs: tool.timeoutMs,
      observationChars: tool.observationChars,
    }),
    hasCodeBlock: codeBlockRule(format),
    problems: (step, batch, count) =>
      demoProblems(task, parts, 'train', count, deriveSeed(choices.seed, 'rl-problems', step, batch)),
    estimator: named(`estimator ${JSON.stringify(choices.estimator)}`, () =>
      getAdvantageEstimator(choices.estimator),
    ),
    shaper: named(`shaper ${JSON.stringify(choices.shaper)}`, () => getEntropyShaper(choices.shaper)),
    filter: filters.length === 0 ? null : composeFilters(...filters),
    update,
    rollout,
    groups: rl.groups,
    groupSize: rl.groupSize,
    maxGenBatches: rl.maxGenBatches,
    overlong: rl.overlong,
    maxInfraFailureRate: tool.maxInfraFailureRate,
    seed: choices.seed,
  };
  return { context, updater };
}
