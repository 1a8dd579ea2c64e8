/// <reference path="../text-modules.d.ts" />
// The texts a browser's interpreters run, put in the build by the bundler (tsup's text loader for .py and .mjs
// files in the browser entry's build; the browser test's esbuild bundle does the same), so that a page serves no
// file of this package.

import workerScript from '../../pyodide/worker.mjs';
import cellRunner from '../../python/cell_runner.py';
import pyodideRunner from '../../python/pyodide_runner.py';
import { withCellRunner } from '../program-assembly';

/** python/pyodide_runner.py with the cell runner in place, as src/python-programs.ts assembles it in Node. */
export const PYODIDE_RUNNER: string = withCellRunner('pyodide_runner.py', pyodideRunner, cellRunner);

/** pyodide/worker.mjs, the interpreter's side: a browser starts it from a blob: URL. */
export const WORKER_SCRIPT: string = workerScript;
