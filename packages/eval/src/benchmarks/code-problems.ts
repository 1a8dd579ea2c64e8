import { BenchmarkFormatError, type CodeProblem, type CodeTest } from '@taorl/eval';
import { checkFunctionalTests } from './functional-tests';
import { type LiveCodeBenchOptions, loadLiveCodeBench } from './livecodebench';
import { readTableRows, stringField, type TableRow } from './table-rows';

/**
 * Code problems for a code-correctness reward, from a .jsonl (or .parquet) file in taorl's layout, one problem a
 * row: `{"id", "question", "tests": [{"input", "output"}], "method"?, "starter_code"?}` (`method` makes the tests
 * functional: JSON arguments one per line, a JSON result, checked here), or in LiveCodeBench's release layout (rows with
 * `question_id` and `public_test_cases`; `options` as for loadLiveCodeBench).
 */
export async function loadCodeProblems(
  path: string,
  options: LiveCodeBenchOptions = {},
): Promise<CodeProblem[]> {
  const rows = await readTableRows(path);
  if (rows.length === 0) throw new BenchmarkFormatError(`${path}: holds no problems`);
  if ('public_test_cases' in rows[0]!.value) return loadLiveCodeBench(path, options);
  const ids = new Set<string>();
  return rows.map((row) => {
    const problem = codeProblemOf(row);
    if (ids.has(problem.id))
      throw new BenchmarkFormatError(`${row.where}: problem id "${problem.id}" appears twice`);
    ids.add(problem.id);
    return problem;
  });
}

function codeProblemOf(row: TableRow): CodeProblem {
  const id = stringField(row, 'id');
  const tests = row.value.tests;
  if (!Array.isArray(tests) || tests.length === 0) {
    throw new BenchmarkFormatError(`${row.where}: field "tests" must be a non-empty list of {input, output}`);
  }
  const checked = tests.map((test, index): CodeTest => {
    const { input, output } = (test ?? {}) as Record<string, unknown>;
    if (typeof input !== 'string' || typeof output !== 'string') {
      throw new BenchmarkFormatError(`${row.where}: tests[${index}] needs string "input" and "output"`);
    }
    return { input, output };
  });
  const method = row.value.method;
  if (method !== undefined && typeof method !== 'string') {
    throw new BenchmarkFormatError(`${row.where}: field "method" must be a string`);
  }
  if (method !== undefined) checkFunctionalTests(checked, row.where, (index) => `tests[${index}]`);
  const starter = row.value.starter_code;
  return {
    id,
    question: stringField(row, 'question'),
    starterCode: typeof starter === 'string' ? starter : '',
    task:
      method === undefined
        ? { id, kind: 'stdin', tests: checked }
        : { id, kind: 'functional', method, tests: checked },
  };
}
