/** The line of a program that the cell runner's text takes the place of: one text for `python3 -c` or a server. */
const CELL_RUNNER_IMPORT = /^from cell_runner import .*\n/m;

/** `source` (python/`file`) with the cell runner's text in place of its `from cell_runner import` line. */
export function withCellRunner(file: string, source: string, cellRunner: string): string {
  if (!CELL_RUNNER_IMPORT.test(source)) {
    throw new Error(
      `@taorl/sandbox: python/${file} has no 'from cell_runner import' line to put the cell runner in`,
    );
  }
  return source.replace(CELL_RUNNER_IMPORT, () => cellRunner);
}
