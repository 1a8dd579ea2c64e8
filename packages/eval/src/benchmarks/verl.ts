import { BenchmarkFormatError, type BenchmarkProblem } from '@taorl/eval';
import { readParquet } from './table-rows';

/**
 * Reads a verl RL parquet file (columns data_source, prompt = [{role, content}], reward_model.ground_truth,
 * extra_info.index) as benchmark problems: the problem is the last user message, the gold the ground truth
 * (a list of answers when the column holds one).
 */
export async function loadVerlParquet(path: string): Promise<BenchmarkProblem[]> {
  const rows = await readParquet(path);
  return rows.map((row, index) => verlProblem(row.value, row.where, index));
}

function verlProblem(row: Readonly<Record<string, unknown>>, where: string, index: number): BenchmarkProblem {
  const dataSource = row.data_source;
  if (typeof dataSource !== 'string')
    throw new BenchmarkFormatError(`${where}: field "data_source" must be a string`);
  const prompt = row.prompt;
  const userTurns = Array.isArray(prompt)
    ? prompt.filter((turn): turn is { role: string; content: string } => isTurn(turn) && turn.role === 'user')
    : [];
  const problem = userTurns.at(-1)?.content;
  if (problem === undefined) throw new BenchmarkFormatError(`${where}: field "prompt" has no user message`);
  const rewardModel = row.reward_model as { ground_truth?: unknown } | null | undefined;
  const truth = rewardModel?.ground_truth;
  const gold = (Array.isArray(truth) ? truth : [truth]).map((item) =>
    typeof item === 'number' && Number.isFinite(item) ? String(item) : item,
  );
  if (gold.length === 0 || !gold.every((item): item is string => typeof item === 'string')) {
    throw new BenchmarkFormatError(
      `${where}: field "reward_model.ground_truth" must be a string or a list of strings`,
    );
  }
  const extra = row.extra_info as { index?: unknown } | null | undefined;
  const id = extra?.index ?? row.id ?? index;
  return { benchmark: dataSource, id: String(id), problem, gold };
}

function isTurn(value: unknown): value is { role: string; content: string } {
  const turn = value as { role?: unknown; content?: unknown } | null;
  return typeof turn?.role === 'string' && typeof turn.content === 'string';
}
