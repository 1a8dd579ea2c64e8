import { BenchmarkFormatError, type ChoiceProblem, shuffleChoices } from '@taorl/eval';
import { readTableRows, stringField } from './table-rows';

export interface GpqaOptions {
  /** The seed of the options' order (each problem's permutation also depends on its id). Default 0. */
  readonly seed?: number;
}

/** A GPQA question ready to ask: its options shuffled, the gold letter, and the record's domain. */
export interface GpqaProblem extends ChoiceProblem {
  readonly domain?: string;
}

/**
 * Reads GPQA in its release's column layout (gpqa_diamond.csv from the authors' archive, or a .parquet / .jsonl
 * copy with the same columns: "Question", "Correct Answer", "Incorrect Answer 1".."3", "Record ID", "High-level
 * domain") and shuffles each problem's options by `seed` and the record id. taorl ships no GPQA data: its authors
 * ask that its questions never appear in plain text on the web; point this at your own copy.
 */
export async function loadGpqa(path: string, options: GpqaOptions = {}): Promise<GpqaProblem[]> {
  const rows = await readTableRows(path);
  if (rows.length === 0) throw new BenchmarkFormatError(`${path}: holds no GPQA records`);
  const seen = new Set<string>();
  return rows.map((row) => {
    const id = row.value['Record ID'] === undefined ? row.where : stringField(row, 'Record ID');
    if (seen.has(id)) throw new BenchmarkFormatError(`${row.where}: "Record ID" ${id} appears twice`);
    seen.add(id);
    const incorrect = [1, 2, 3].map((index) => stringField(row, `Incorrect Answer ${index}`).trim());
    const problem = shuffleChoices(
      {
        id,
        question: stringField(row, 'Question'),
        correct: stringField(row, 'Correct Answer').trim(),
        incorrect,
      },
      options.seed ?? 0,
    );
    const domain = row.value['High-level domain'];
    return typeof domain === 'string' ? { ...problem, domain } : problem;
  });
}
