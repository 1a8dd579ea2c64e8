import { BenchmarkFormatError, type CodeTest } from '@taorl/eval';
import { parsePyJson } from '../code/python-json';

/**
 * Refuses, at load, a functional test judgeProgram could not read: each line of its input must be one JSON
 * argument and its output one JSON value, as LiveCodeBench's json.loads reads them. Judged later, such a test
 * would fail every program, right ones included (a reward of 0 for a right answer). The error names the row
 * (`where`), the field (`field(index)`) and the line.
 */
export function checkFunctionalTests(
  tests: readonly CodeTest[],
  where: string,
  field: (index: number) => string,
): void {
  tests.forEach((test, index) => {
    const check = (text: string, what: string) => {
      try {
        parsePyJson(text);
      } catch (error) {
        throw new BenchmarkFormatError(
          `${where}: ${field(index)}.${what} is not JSON (${(error as Error).message}): ` +
            `${JSON.stringify(text.slice(0, 60))}; a functional test holds one JSON argument a line and a JSON result`,
        );
      }
    };
    for (const [number, line] of test.input.split('\n').entries()) check(line, `input line ${number + 1}`);
    check(test.output, 'output');
  });
}
