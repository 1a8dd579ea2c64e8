import { BenchmarkFormatError, type ChoiceProblem, normalizeOptionText, shuffleChoices } from '@taorl/eval';
import { readTableRows, stringField, type TableRow } from './table-rows';

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
 * domain") and shuffles each problem's options by `seed` and the record id. A row that would give a wrong reward is
 * refused, naming the file, the row and the field: an empty option (an empty correct answer pays nothing, or any
 * empty response's option text), or two options that read the same (a response naming the correct answer's text
 * could not be told from one naming the wrong copy). taorl ships no GPQA data: its authors ask that its questions
 * never appear in plain text on the web; point this at your own copy.
 */
export async function loadGpqa(path: string, options: GpqaOptions = {}): Promise<GpqaProblem[]> {
  const rows = await readTableRows(path);
  if (rows.length === 0) throw new BenchmarkFormatError(`${path}: holds no GPQA records`);
  const seen = new Set<string>();
  return rows.map((row) => {
    const id = row.value['Record ID'] === undefined ? row.where : stringField(row, 'Record ID');
    if (seen.has(id)) throw new BenchmarkFormatError(`${row.where}: "Record ID" ${id} appears twice`);
    seen.add(id);
    const [correct, ...incorrect] = optionFields.map((field) => optionOf(row, field));
    checkDistinct(row, [correct!, ...incorrect]);
    const problem = shuffleChoices(
      {
        id,
        question: stringField(row, 'Question'),
        correct: correct!.text,
        incorrect: incorrect.map((option) => option.text),
      },
      options.seed ?? 0,
    );
    const domain = row.value['High-level domain'];
    return typeof domain === 'string' ? { ...problem, domain } : problem;
  });
}

const optionFields = [
  'Correct Answer',
  'Incorrect Answer 1',
  'Incorrect Answer 2',
  'Incorrect Answer 3',
] as const;

interface OptionField {
  readonly field: string;
  readonly text: string;
}

function optionOf(row: TableRow, field: string): OptionField {
  const text = stringField(row, field).trim();
  if (text === '') {
    throw new BenchmarkFormatError(`${row.where}: field "${field}" is empty; every option needs its text`);
  }
  return { field, text };
}

/** Two options that read the same (case, spacing, emphasis and a closing period aside) make a wrong reward possible. */
function checkDistinct(row: TableRow, options: readonly OptionField[]): void {
  const seen = new Map<string, string>();
  for (const { field, text } of options) {
    const key = normalizeOptionText(text);
    const first = seen.get(key);
    if (first !== undefined) {
      throw new BenchmarkFormatError(
        `${row.where}: field "${field}" repeats "${first}" (${JSON.stringify(text)}); each option must differ, fix or drop the row`,
      );
    }
    seen.set(key, field);
  }
}
