import { createRegistry, type Registry, registerFunction } from '@taorl/plugin-registry';
import { createLocalSandbox, type LocalSandbox } from './local/local-sandbox';
import { type LocalSandboxOptions, resolveLocalOptions } from './local/options';
import { createPyodideSandbox } from './pyodide/node-sandbox';
import { type PyodideSandboxOptions, resolvePyodideOptions } from './pyodide/options';
import type { PyodideSandbox } from './pyodide/pyodide-sandbox';
import { packagePresent } from './pyodide/site-packages';
import {
  createSandboxFusionSandbox,
  resolveSandboxFusionOptions,
  type SandboxFusionOptions,
} from './remote/sandboxfusion';
import type { Sandbox } from './types';

/** Options of a backend registered by name; `backend` selects it. */
export interface CustomSandboxOptions {
  backend: string;
  [option: string]: unknown;
}

/** Builds a sandbox from its options; what `registerSandboxBackend` takes. */
export type SandboxBackendFactory = (options: CustomSandboxOptions) => Promise<Sandbox>;

/**
 * The sandbox backends selectable by `backend` (docs/plug-ins.md describes the contract every taorl registry
 * follows). A backend's schema checks its options without starting anything, so that checkSandboxOptions fails a
 * configuration before any work starts.
 */
const backends: Registry<Promise<Sandbox>> = createRegistry<Promise<Sandbox>>('sandbox', 'sandbox backend');

/**
 * Makes `createSandbox({ backend: name, ... })` use `factory`: `registerSandboxBackend(name, factory)`, or with
 * `{ schema }` (a zod or other Standard Schema, or a function that returns the options or throws naming the bad
 * one) that checks the options first, also for `checkSandboxOptions`. The options include `backend`. A second
 * registration of a name, a built-in one too, is an error unless `{ replace: true }` is given.
 *
 * @function
 */
export const registerSandboxBackend = registerFunction(backends);

/** Names of the registered backends. */
export function sandboxBackendNames(): string[] {
  return backends.names();
}

backends.registerBuiltIn(
  'local',
  (options: LocalSandboxOptions) => createLocalSandbox(options),
  (options) => {
    resolveLocalOptions(options as LocalSandboxOptions);
    return options as LocalSandboxOptions;
  },
);
backends.registerBuiltIn(
  'sandboxfusion',
  (options: SandboxFusionOptions) => createSandboxFusionSandbox(options),
  (options) => {
    resolveSandboxFusionOptions(options as unknown as SandboxFusionOptions);
    return options as unknown as SandboxFusionOptions;
  },
);

backends.registerBuiltIn(
  'pyodide',
  (options: PyodideSandboxOptions) => createPyodideSandbox(options),
  (options) => {
    resolvePyodideOptions(options as PyodideSandboxOptions, packagePresent);
    return options as PyodideSandboxOptions;
  },
);

/** The options with `backend` filled in ('local' when left out). */
function withBackend(options: { backend?: string }): CustomSandboxOptions {
  return { ...options, backend: options.backend ?? 'local' };
}

/**
 * Checks options as `createSandbox` would, without starting anything (an unknown backend, a misspelled or invalid
 * option), so that a configuration fails before any work starts. A backend registered without a check passes.
 */
export function checkSandboxOptions(options: { backend?: string; [option: string]: unknown } = {}): void {
  const checked = withBackend(options);
  backends.checkOptions(checked.backend, checked);
}

/**
 * Creates a sandbox. `backend` names a registered backend: 'local' (default; bubblewrap-isolated pool of
 * pre-started Python workers), 'pyodide' (CPython in WebAssembly, a fresh interpreter per run: needs no python3,
 * bubblewrap or root; see docs/explanation/sandbox.md for what its boundary holds) or 'sandboxfusion' (a client
 * for a SandboxFusion server). Unknown options reject.
 */
export function createSandbox(options?: LocalSandboxOptions & { backend?: 'local' }): Promise<LocalSandbox>;
export function createSandbox(
  options: PyodideSandboxOptions & { backend: 'pyodide' },
): Promise<PyodideSandbox>;
export function createSandbox(options: SandboxFusionOptions & { backend: 'sandboxfusion' }): Promise<Sandbox>;
export function createSandbox(options: CustomSandboxOptions): Promise<Sandbox>;
export async function createSandbox(options: { backend?: string } = {}): Promise<Sandbox> {
  const checked = withBackend(options);
  return backends.create(checked.backend, checked);
}
