import { createLocalSandbox, type LocalSandbox } from './local/local-sandbox';
import type { LocalSandboxOptions } from './local/options';
import { createSandboxFusionSandbox, type SandboxFusionOptions } from './remote/sandboxfusion';
import type { Sandbox } from './types';

/** Options of a backend registered by name; `backend` selects it. */
export interface CustomSandboxOptions {
  backend: string;
  [option: string]: unknown;
}

/** Builds a sandbox from its options; what `registerSandboxBackend` takes. */
export type SandboxBackendFactory = (options: CustomSandboxOptions) => Promise<Sandbox>;

const backends = new Map<string, SandboxBackendFactory>();

/** Makes `createSandbox({ backend: name, ... })` use `factory`. Replacing a built-in backend is allowed. */
export function registerSandboxBackend(name: string, factory: SandboxBackendFactory): void {
  if (typeof name !== 'string' || name === '')
    throw new TypeError('registerSandboxBackend: name must be a non-empty string');
  backends.set(name, factory);
}

/** Names of the registered backends. */
export function sandboxBackendNames(): string[] {
  return [...backends.keys()];
}

registerSandboxBackend('local', (options) => createLocalSandbox(options as LocalSandboxOptions));
registerSandboxBackend('sandboxfusion', (options) =>
  createSandboxFusionSandbox(options as unknown as SandboxFusionOptions),
);

/**
 * Creates a sandbox. `backend` names a registered backend: 'local' (default; bubblewrap-isolated pool of
 * pre-started Python workers) or 'sandboxfusion' (a client for a SandboxFusion server).
 */
export function createSandbox(options?: LocalSandboxOptions & { backend?: 'local' }): Promise<LocalSandbox>;
export function createSandbox(options: SandboxFusionOptions & { backend: 'sandboxfusion' }): Promise<Sandbox>;
export function createSandbox(options: CustomSandboxOptions): Promise<Sandbox>;
export async function createSandbox(options: { backend?: string } = {}): Promise<Sandbox> {
  const name = options.backend ?? 'local';
  const factory = backends.get(name);
  if (!factory) {
    throw new Error(
      `createSandbox: unknown backend ${JSON.stringify(name)}; registered: ${sandboxBackendNames().join(', ')}`,
    );
  }
  return factory({ ...options, backend: name });
}
