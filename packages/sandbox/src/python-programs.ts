import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { withCellRunner } from './program-assembly';

// The Python programs live as .py files in the package's python/ folder, linted and tested as Python
// (test/python.test.ts). This module sits directly in src/, as the one-module builds sit directly in dist/, so
// '../python/' names that folder from the sources (tests, tsx) and from the ESM and CJS builds alike (tsup's shims
// give the CJS build its import.meta.url).
const PYTHON_DIR = new URL('../python/', import.meta.url);

export type PythonProgram = 'worker' | 'sandboxfusion_program' | 'pyodide_runner';

const assembled = new Map<PythonProgram, string>();

function readPython(file: string): string {
  const path = fileURLToPath(new URL(file, PYTHON_DIR));
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`@taorl/sandbox: cannot read its Python program ${path}: ${(error as Error).message}`);
  }
}

/** A program's source with the cell runner's in place of its `from cell_runner import` line (read once). */
export function pythonProgram(name: PythonProgram): string {
  let program = assembled.get(name);
  if (program === undefined) {
    const file = `${name}.py`;
    program = withCellRunner(file, readPython(file), readPython('cell_runner.py'));
    assembled.set(name, program);
  }
  return program;
}
