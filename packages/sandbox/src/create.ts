import { createLocalSandbox, type LocalSandbox } from './local/local-sandbox';
import { type LocalSandboxOptions, resolveLocalOptions } from './local/options';
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

/** Checks a backend's options without starting anything; throws an error naming the bad field. */
export type SandboxOptionsCheck = (options: CustomSandboxOptions) => void;

const backends = new Map<string, { factory: SandboxBackendFactory; check?: SandboxOptionsCheck }>();

/**
 * Makes `createSandbox({ backend: name, ... })` use `factory`, and `checkSandboxOptions` use `check` when given.
 * Replacing a built-in backend is allowed.
 */
export function registerSandboxBackend(
  name: string,
  factory: SandboxBackendFactory,
  check?: SandboxOptionsCheck,
): void {
  if (typeof name !== 'string' || name === '')
    throw new TypeError('registerSandboxBackend: name must be a non-empty string');
  backends.set(name, check ? { factory, check } : { factory });
}

/** Names of the registered backends. */
export function sandboxBackendNames(): string[] {
  return [...backends.keys()];
}

registerSandboxBackend(
  'local',
  (options) => createLocalSandbox(options as LocalSandboxOptions),
  (options) => {
    resolveLocalOptions(options as LocalSandboxOptions);
  },
);
registerSandboxBackend(
  'sandboxfusion',
  (options) => createSandboxFusionSandbox(options as unknown as SandboxFusionOptions),
  (options) => {
    resolveSandboxFusionOptions(options as unknown as SandboxFusionOptions);
  },
);

function backendOf(options: { backend?: string }): {
  name: string;
  factory: SandboxBackendFactory;
  check?: SandboxOptionsCheck;
} {
  const name = options.backend ?? 'local';
  const entry = backends.get(name);
  if (!entry) {
    throw new Error(
      `createSandbox: unknown backend ${JSON.stringify(name)}; registered: ${sandboxBackendNames().join(', ')}`,
    );
  }
  return { name, ...entry };
}

/**
 * Checks options as `createSandbox` would, without starting anything (an unknown backend, a misspelled or invalid
 * option), so that a configuration fails before any work starts. A backend registered without a check passes.
 */
export function checkSandboxOptions(options: { backend?: string; [option: string]: unknown } = {}): void {
  const { name, check } = backendOf(options);
  check?.({ ...options, backend: name });
}

/**
 * Creates a sandbox. `backend` names a registered backend: 'local' (default; bubblewrap-isolated pool of
 * pre-started Python workers) or 'sandboxfusion' (a client for a SandboxFusion server). Unknown options reject.
 */
export function createSandbox(options?: LocalSandboxOptions & { backend?: 'local' }): Promise<LocalSandbox>;
export function createSandbox(options: SandboxFusionOptions & { backend: 'sandboxfusion' }): Promise<Sandbox>;
export function createSandbox(options: CustomSandboxOptions): Promise<Sandbox>;
export async function createSandbox(options: { backend?: string } = {}): Promise<Sandbox> {
  const { name, factory } = backendOf(options);
  return factory({ ...options, backend: name });
}
