// The judges are Python files (packages/eval/python), linted as Python; python-sources.ts carries their text so
// this module stays portable: no file is read at run time.
import { CALL_JUDGE_PY, JUDGE_PRELUDE_PY, LIVECODEBENCH_JUDGE_PY, STDIO_JUDGE_PY } from './python-sources';

const PRELUDE_IMPORT = /^from judge_prelude import [\w, ]+\n/m;

function withPrelude(name: string, source: string): string {
  if (!PRELUDE_IMPORT.test(source)) {
    throw new Error(
      `@taorl/eval: python/${name} has no 'from judge_prelude import' line to put the prelude in`,
    );
  }
  return source.replace(PRELUDE_IMPORT, () => JUDGE_PRELUDE_PY);
}

/** The program that runs solution.py on standard input. */
export const STDIO_JUDGE = withPrelude('stdio_judge.py', STDIO_JUDGE_PY);
/** The program that calls one method of solution.py (named in judge.json) with JSON arguments. */
export const CALL_JUDGE = withPrelude('call_judge.py', CALL_JUDGE_PY);
/** The program that judges solution.py on every test of tests.json in one process, as LiveCodeBench's runner does. */
export const LIVECODEBENCH_JUDGE = withPrelude('livecodebench_judge.py', LIVECODEBENCH_JUDGE_PY);
