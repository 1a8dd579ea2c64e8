import { ARITH_STRATEGIES, type ArithStrategy, arithStrategyOf, type Trajectory } from '@taorl/data';
import type { Problem } from './problem';

/** Where a set of graded trajectories stands on the embedded task: strategy shares and accuracy per level. */
export interface TaskBreakdown {
  /** Share of trajectories per strategy (arithStrategyOf), over the trajectories whose problem says its calls. */
  strategies: Record<ArithStrategy, number>;
  /** Accuracy per problem level ("1".."4"). */
  accuracyByLevel: Record<string, number>;
}

/** The breakdown, or null when the problems carry no level / required calls (a task read from files). */
export function taskBreakdown(
  trajectories: readonly Trajectory[],
  problems: ReadonlyMap<string, Problem>,
): TaskBreakdown | null {
  const counts = Object.fromEntries(ARITH_STRATEGIES.map((name) => [name, 0])) as Record<
    ArithStrategy,
    number
  >;
  const levels = new Map<string, { correct: number; total: number }>();
  let counted = 0;
  for (const t of trajectories) {
    const problem = problems.get(t.groupId);
    if (problem?.requiredCalls === undefined || problem.level === undefined) continue;
    counted++;
    counts[arithStrategyOf(t.toolCalls, problem.requiredCalls)]++;
    const level = levels.get(String(problem.level)) ?? { correct: 0, total: 0 };
    level.total++;
    if (t.correct) level.correct++;
    levels.set(String(problem.level), level);
  }
  if (counted === 0) return null;
  for (const name of ARITH_STRATEGIES) counts[name] /= counted;
  const accuracyByLevel = Object.fromEntries(
    [...levels.entries()].sort().map(([level, { correct, total }]) => [level, correct / total]),
  );
  return { strategies: counts, accuracyByLevel };
}
