import { createRegistry, type RawOptions, type Registry, registerFunction } from '@taorl/plugin-registry';
import type { AdvantageEstimator } from './estimators';

/**
 * The advantage estimators selectable by name (docs/plug-ins.md describes the contract every taorl registry
 * follows). The built-ins (grpo, drgrpo, rloo) register themselves where they are defined.
 */
export const estimatorRegistry: Registry<AdvantageEstimator> = createRegistry<AdvantageEstimator>(
  'advantage',
  'advantage estimator',
  { methods: ['estimate'] },
);

/** Builds an estimator from config options; options it does not know are an error. */
export type AdvantageEstimatorFactory = (options: RawOptions) => AdvantageEstimator;

/** The estimator registered under `name` (grpo, drgrpo, rloo, or your own), built with `options`. */
export function getAdvantageEstimator(name: string, options: RawOptions = {}): AdvantageEstimator {
  return estimatorRegistry.create(name, options);
}

/**
 * Registers an estimator under a config name: `registerAdvantageEstimator(name, factory)` with a factory that
 * checks its own options, or with `{ schema }`, a zod (any Standard Schema) schema of its options. A second
 * registration of a name is an error unless `{ replace: true }` is given.
 *
 * @function
 */
export const registerAdvantageEstimator = registerFunction(estimatorRegistry);

export function advantageEstimatorNames(): string[] {
  return estimatorRegistry.names();
}
