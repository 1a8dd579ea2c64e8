import { fileURLToPath } from 'node:url';

// The pyodide backend's worker is a plain JavaScript file in the package's pyodide/ folder (it also runs as a web
// worker). This module sits directly in src/, as the one-module builds sit directly in dist/, so '../pyodide/'
// names that folder from the sources and from the ESM and CJS builds alike (see src/python-programs.ts).
export const PYODIDE_WORKER_PATH = fileURLToPath(new URL('../pyodide/worker.mjs', import.meta.url));
