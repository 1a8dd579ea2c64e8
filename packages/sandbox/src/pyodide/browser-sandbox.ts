/// <reference lib="dom" />
import { type BrowserPyodideSandboxOptions, resolveBrowserPyodideOptions } from './browser-options';
import { PYODIDE_RUNNER, WORKER_SCRIPT } from './browser-sources';
import { type PyodideSandbox, startPyodidePool } from './pyodide-sandbox';
import { WebWorkerInterpreter } from './web-worker';

/** What the page's browser lacks of what the backend needs, in words that say so; null when it has it all. */
function missingFeature(): string | null {
  if (typeof WebAssembly !== 'object') return 'WebAssembly, which runs the Python interpreter';
  if (typeof Worker !== 'function')
    return 'Web Workers (Worker), in which each run is kept apart from the page';
  if (typeof Blob !== 'function' || typeof URL.createObjectURL !== 'function') {
    return 'blob: URLs (Blob, URL.createObjectURL), from which the worker script starts';
  }
  return null;
}

/**
 * Creates the pyodide backend in a browser: CPython in WebAssembly, each run in a fresh web worker started from a
 * memory snapshot, with the same interface, statuses and limits as Node's `createSandbox({ backend: 'pyodide' })`.
 * Pyodide's files come from `indexURL`, which the page serves (see the package README); docs/explanation/sandbox.md
 * says what the boundary holds in a browser.
 */
export async function createSandbox(options: BrowserPyodideSandboxOptions): Promise<PyodideSandbox> {
  const missing = missingFeature();
  if (missing !== null) {
    throw new Error(
      `@taorl/sandbox (pyodide, browser): this browser lacks ${missing}; use a current browser`,
    );
  }
  const resolved = resolveBrowserPyodideOptions(options, typeof location === 'object' ? location.href : '');
  const scriptURL = URL.createObjectURL(new Blob([WORKER_SCRIPT], { type: 'text/javascript' }));
  let sandbox: PyodideSandbox;
  try {
    sandbox = await startPyodidePool(
      resolved,
      [],
      PYODIDE_RUNNER,
      () => new WebWorkerInterpreter(scriptURL),
      false,
    );
  } catch (error) {
    URL.revokeObjectURL(scriptURL);
    throw error;
  }
  // The script's URL lives as long as the sandbox: every run starts a worker from it.
  const close = sandbox.close.bind(sandbox);
  sandbox.close = async () => {
    await close();
    URL.revokeObjectURL(scriptURL);
  };
  return sandbox;
}
