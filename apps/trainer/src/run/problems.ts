import { arithUserMessage, generateArithProblems } from '@taorl/data';
import { ConfigError } from '../config/schema-dsl.js';
import type { Problem } from '../rl/rewards.js';
import { deriveSeed } from '../util/seeds.js';
import type { Session } from './session.js';

/** Where RL problems and held-out problems come from. */
export interface ProblemSource {
  /** `count` training problems for refill batch `batch` of step `step`; deterministic in (seed, step, batch). */
  train(step: number, batch: number, count: number): Problem[];
  /** The held-out problems (fixed for a seed). */
  test(): Problem[];
}

/**
 * The embedded arith-tool task: fresh training problems every step from @taorl/data's generator (the train split
 * never shares a question with the test split).
 */
export function arithToolProblems(session: Session): ProblemSource {
  const { config } = session;
  const toProblem = (problem: ReturnType<typeof generateArithProblems>[number]): Problem => ({
    id: problem.id,
    promptIds: session.promptIds(arithUserMessage(problem)),
    gold: problem.answer,
  });
  return {
    train: (step, batch, count) =>
      generateArithProblems({
        seed: deriveSeed(config.seed, 'rl-problems', step, batch),
        split: 'train',
        count,
      }).map(toProblem),
    test: () =>
      generateArithProblems({
        seed: deriveSeed(config.seed, 'test-problems'),
        split: 'test',
        count: config.task.testSize,
      }).map(toProblem),
  };
}

export function problemSource(session: Session): ProblemSource {
  if (session.config.task.name === 'arith-tool') return arithToolProblems(session);
  throw new ConfigError(
    session.source,
    'task.name',
    "'file' tasks are not wired into the trainer yet; use arith-tool",
  );
}
