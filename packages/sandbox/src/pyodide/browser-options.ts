import { type ExecLimits, resolveLimits } from '../limits';
import { rejectUnknownFields } from '../unknown-fields';
import type { PoolOptions } from './pyodide-sandbox';

/** The pyodide backend in a browser: `createSandbox` of '@taorl/sandbox/browser'. */
export interface BrowserPyodideSandboxOptions {
  /** The one backend that runs in a browser. */
  backend: 'pyodide';
  /**
   * Where the page serves the files of the npm package pyodide (pyodide.mjs, pyodide.asm.mjs, pyodide.asm.wasm,
   * python_stdlib.zip, pyodide-lock.json), as a URL of their folder, absolute or relative to the page. Nothing is
   * fetched from a CDN.
   */
  indexURL: string;
  /** Runs at once, each in a web worker of its own started ahead of its request. Default 2. */
  workers?: number;
  /** As the Node backend's `limits` (PyodideSandboxOptions). */
  limits?: Partial<ExecLimits>;
  /** Standard-library modules imported before the snapshot, so that no run pays for their import. Default none. */
  preload?: readonly string[];
  /** How long the snapshot and each interpreter may take to start. Default 120 000. */
  startupTimeoutMs?: number;
}

const OPTIONS: readonly (keyof BrowserPyodideSandboxOptions)[] = [
  'backend',
  'indexURL',
  'workers',
  'limits',
  'preload',
  'startupTimeoutMs',
];

function fail(field: string, expected: string, got: unknown): never {
  throw new TypeError(
    `createSandbox (pyodide, browser): ${field} must be ${expected}, got ${JSON.stringify(got) ?? String(got)}`,
  );
}

function positiveInteger(value: unknown, field: string): number {
  if (!Number.isInteger(value) || (value as number) < 1) fail(field, 'a positive integer', value);
  return value as number;
}

/**
 * Checks the options field by field and fills in the defaults; `indexURL` becomes absolute (against `base`, the
 * page's address) and ends with '/', as Pyodide needs in a worker whose own address is not the page's.
 */
export function resolveBrowserPyodideOptions(
  options: BrowserPyodideSandboxOptions,
  base: string,
): PoolOptions {
  if (options === null || typeof options !== 'object') fail('its options', 'an object', options);
  rejectUnknownFields(options, OPTIONS, 'createSandbox (pyodide, browser)');
  if (options.backend !== 'pyodide') {
    fail(
      'backend',
      "'pyodide' (the one backend that runs in a browser: 'local' needs Linux and bubblewrap, 'sandboxfusion' a server)",
      options.backend,
    );
  }
  if (typeof options.indexURL !== 'string' || options.indexURL === '') {
    fail(
      'indexURL',
      "the URL of the folder where the page serves the npm package pyodide's files",
      options.indexURL,
    );
  }
  let index: string;
  try {
    index = new URL(options.indexURL, base || undefined).href;
  } catch {
    fail('indexURL', 'a URL, absolute where the code runs outside a page', options.indexURL);
  }
  const preload = options.preload ?? [];
  if (
    !Array.isArray(preload) ||
    preload.some((name) => typeof name !== 'string' || !/^[A-Za-z_][\w.]*$/.test(name))
  ) {
    fail('preload', 'an array of module names', preload);
  }
  return {
    workers: positiveInteger(options.workers ?? 2, 'workers'),
    limits: resolveLimits(options.limits, 'createSandbox (pyodide, browser) limits'),
    packages: [],
    preload: [...preload],
    startupTimeoutMs: positiveInteger(options.startupTimeoutMs ?? 120_000, 'startupTimeoutMs'),
    indexURL: index.endsWith('/') ? index : `${index}/`,
  };
}
