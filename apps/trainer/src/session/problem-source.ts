import {
  arithMix,
  arithUserMessage,
  type ChainProblem,
  type ChatMessage,
  generateArithProblems,
  generateChainProblems,
  type RlPrompt,
} from '@taorl/data';
import { loadDataset } from '@taorl/data/node';
import type { CodeProblem } from '@taorl/eval';
import { loadCodeProblems } from '@taorl/eval/node';
import type { Problem } from '@taorl/rl';
import { ConfigError } from '../config/config-error.js';
import { codeUserMessage } from '../task/code-prompt.js';
import { embeddedCodeProblems } from '../task/embedded-code-task.js';
import { BOXED_ANSWER_RULE, toolSystemPrompt, withSystemPrompt } from '../task/tool-instructions.js';
import { epochStream } from '../util/batching.js';
import { deriveSeed } from '../util/seeds.js';
import { fromRegistry, toolFormatOf } from './components.js';
import type { Session } from './session.js';

/**
 * A task's prompt messages with the system message tool.instructions asks for, and their token ids: the fields
 * of a Problem that its prompt fills in.
 */
type RenderPrompt = (messages: readonly ChatMessage[]) => Pick<Problem, 'promptIds' | 'promptMessages'>;

/** Where RL problems and held-out problems come from. */
export interface ProblemSource {
  /** `count` training problems for refill batch `batch` of step `step`; deterministic in (seed, step, batch). */
  train(step: number, batch: number, count: number): Problem[];
  /** The held-out problems (fixed for a seed). */
  test(): Problem[];
}

/** A generated problem as both embedded tool tasks draw it. */
type GeneratedProblem = Pick<ChainProblem, 'id' | 'question' | 'answer' | 'steps' | 'level'>;

/** Draws `count` problems of one split of an embedded task from `seed`. */
type GenerateProblems = (
  session: Session,
  split: 'train' | 'test',
  count: number,
  seed: number,
) => readonly GeneratedProblem[];

/**
 * An embedded generated task (arith-tool, chain-tool): fresh training problems every step from its generator in
 * @taorl/data (the train split never shares a question with the test split); the level of a problem is the one
 * its generator gives (chain-tool's: the calls it needs).
 */
function generatedProblems(
  session: Session,
  renderPrompt: RenderPrompt,
  generate: GenerateProblems,
): ProblemSource {
  const { config } = session;
  const toProblem = (problem: GeneratedProblem): Problem => ({
    id: problem.id,
    ...renderPrompt([{ role: 'user', content: arithUserMessage(problem) }]),
    gold: problem.answer,
    level: problem.level,
    requiredCalls: problem.steps.length,
  });
  return {
    train: (step, batch, count) =>
      generate(session, 'train', count, deriveSeed(config.seed, 'rl-problems', step, batch)).map(toProblem),
    test: () =>
      generate(session, 'test', config.task.testSize, deriveSeed(config.seed, 'test-problems')).map(
        toProblem,
      ),
  };
}

/** Problems of the configured arith-tool mix (task.mix). */
export function arithProblems(session: Session, split: 'train' | 'test', count: number, seed: number) {
  const { kinds, levels } = arithMix(session.config.task.mix);
  return generateArithProblems({
    seed,
    split,
    count,
    ...(kinds === null ? {} : { kinds }),
    ...(levels === null ? {} : { levels }),
  });
}

/** Problems of the chain-tool task with the knobs of task.chain; knobs that cannot work are a config error. */
export function chainProblems(
  session: Pick<Session, 'config' | 'source'>,
  split: 'train' | 'test',
  count: number,
  seed: number,
) {
  try {
    return generateChainProblems({ seed, split, count, ...session.config.task.chain });
  } catch (error) {
    if (error instanceof RangeError) throw new ConfigError(session.source, 'task.chain', error.message);
    throw error;
  }
}

async function loadPrompts(
  session: Session,
  renderPrompt: RenderPrompt,
  path: string,
  field: string,
): Promise<Problem[]> {
  const problems: Problem[] = [];
  try {
    for await (const record of loadDataset(path, 'verl'))
      problems.push(toProblem(renderPrompt, record, path, problems.length));
  } catch (error) {
    throw new ConfigError(session.source, field, (error as Error).message);
  }
  if (problems.length === 0) throw new ConfigError(session.source, field, `${path} holds no prompts`);
  return problems;
}

function toProblem(renderPrompt: RenderPrompt, record: RlPrompt, path: string, index: number): Problem {
  const id = typeof record.extraInfo.id === 'string' ? record.extraInfo.id : `${path}#${index}`;
  try {
    return { id, ...renderPrompt(record.prompt as ChatMessage[]), gold: record.groundTruth };
  } catch (error) {
    throw new Error(`${path}, prompt ${JSON.stringify(id)}: ${(error as Error).message}`);
  }
}

/**
 * RL prompts from verl-format files (JSONL or parquet): training problems are drawn through seeded epoch
 * permutations (problem k of the run depends only on the seed and k); the held-out set is the first testSize
 * prompts of task.testFile.
 */
async function fileProblems(session: Session, renderPrompt: RenderPrompt): Promise<ProblemSource> {
  const { task } = session.config;
  if (task.file === undefined)
    throw new ConfigError(session.source, 'task.file', "required when task.name is 'file'");
  const train = await loadPrompts(session, renderPrompt, task.file, 'task.file');
  const test =
    task.testFile === undefined
      ? []
      : await loadPrompts(session, renderPrompt, task.testFile, 'task.testFile');
  return epochSource(session, train, test);
}

/** Training problems through seeded epoch permutations of `train`; the held-out set is the first testSize of `test`. */
function epochSource(session: Session, train: readonly Problem[], test: readonly Problem[]): ProblemSource {
  const { task, rl, seed } = session.config;
  const stream = epochStream(train.length, seed, 'rl-problem-order');
  return {
    train: (step, batch, count) =>
      Array.from(
        { length: count },
        (_, j) => train[stream(((step - 1) * rl.maxGenBatches + batch) * count + j)]!,
      ),
    test: () => {
      if (test.length === 0)
        throw new ConfigError(session.source, 'task.testFile', 'required for evaluation');
      return test.slice(0, task.testSize);
    },
  };
}

/** A code problem as the RL loop sees it: its prompt, and its tests to judge the program against. */
function codeProblem(renderPrompt: RenderPrompt, problem: CodeProblem): Problem {
  return {
    id: problem.id,
    ...renderPrompt([{ role: 'user', content: codeUserMessage(problem) }]),
    gold: `${problem.task.tests.length} tests`,
    code: problem.task,
  };
}

async function loadCodeTask(
  session: Session,
  renderPrompt: RenderPrompt,
  path: string,
  field: string,
): Promise<Problem[]> {
  try {
    const problems = await loadCodeProblems(path, { runner: session.sandbox });
    return problems.map((problem) => codeProblem(renderPrompt, problem));
  } catch (error) {
    throw new ConfigError(session.source, field, (error as Error).message);
  }
}

/**
 * Code problems judged by their tests (the code-correctness reward): task.file and task.testFile in taorl's code
 * JSONL or LiveCodeBench's layout, or, with no task.file, the embedded stdin/stdout problems (a few hundred
 * generated, held-out ones with other test values).
 */
async function codeProblems(session: Session, renderPrompt: RenderPrompt): Promise<ProblemSource> {
  const { task, seed } = session.config;
  if (task.file === undefined) {
    const embedded = (split: 'train' | 'test', count: number) =>
      embeddedCodeProblems(seed, split, count).map((problem) => codeProblem(renderPrompt, problem));
    return epochSource(session, embedded('train', 500), embedded('test', task.testSize));
  }
  const train = await loadCodeTask(session, renderPrompt, task.file, 'task.file');
  const test =
    task.testFile === undefined
      ? []
      : await loadCodeTask(session, renderPrompt, task.testFile, 'task.testFile');
  return epochSource(session, train, test);
}

/**
 * The system message tool.instructions asks for, or null for none. auto: the tool format's instructions (in the
 * template layout, the template's own tool section instead), then where the final answer goes (a code problem's
 * user message says where its program goes instead).
 */
export function toolInstructionsOf(session: Pick<Session, 'config' | 'source' | 'toolTurns'>): string | null {
  const { config, source } = session;
  const { instructions } = config.tool;
  if (instructions === 'none') return null;
  if (instructions !== 'auto') return instructions;
  const answerRule = config.task.name === 'code' ? undefined : BOXED_ANSWER_RULE;
  // The template layout's template writes the tool section itself (from the tools it is given).
  if (session.toolTurns !== null) return answerRule ?? null;
  const format = toolFormatOf(config, source);
  return fromRegistry(source, 'tool.instructions', () => toolSystemPrompt(format, answerRule));
}

/** The configured task's problems, each prompt with the system message of tool.instructions. */
export async function problemSource(session: Session): Promise<ProblemSource> {
  const system = toolInstructionsOf(session);
  const renderPrompt: RenderPrompt = (messages) => {
    const promptMessages = system === null ? [...messages] : withSystemPrompt(messages, system);
    return { promptIds: session.promptIds(promptMessages), promptMessages };
  };
  const { name } = session.config.task;
  if (name === 'arith-tool') return generatedProblems(session, renderPrompt, arithProblems);
  if (name === 'chain-tool') return generatedProblems(session, renderPrompt, chainProblems);
  return name === 'code' ? codeProblems(session, renderPrompt) : fileProblems(session, renderPrompt);
}
