import { createRegistry, type RawOptions, type Registry, registerFunction } from '@taorl/plugin-registry';
import type { EntropyShaper } from './shaping';

/**
 * The entropy shapers selectable by name (docs/plug-ins.md describes the contract every taorl registry follows).
 * The built-ins (tao, cheng, aepo, none) register themselves where they are defined.
 */
export const shaperRegistry: Registry<EntropyShaper> = createRegistry<EntropyShaper>(
  'advantage',
  'entropy shaper',
  { methods: ['shape'] },
);

/** Builds a shaper from config options; options it does not know are an error. */
export type EntropyShaperFactory = (options: RawOptions) => EntropyShaper;

/** The shaper registered under `name` (tao, cheng, aepo, none, or your own), built with `options`. */
export function getEntropyShaper(name: string, options: RawOptions = {}): EntropyShaper {
  return shaperRegistry.create(name, options);
}

/**
 * Registers a shaper under a config name: `registerEntropyShaper(name, factory)` with a factory that checks its own
 * options, or with `{ schema }`, a zod (any Standard Schema) schema of its options. A second registration of a
 * name is an error unless `{ replace: true }` is given.
 *
 * @function
 */
export const registerEntropyShaper = registerFunction(shaperRegistry);

export function entropyShaperNames(): string[] {
  return shaperRegistry.names();
}
