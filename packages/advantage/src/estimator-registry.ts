import {
  type AdvantageEstimator,
  drGrpoEstimator,
  type GroupBaselineOptions,
  type GrpoOptions,
  grpoEstimator,
  rlooEstimator,
} from './estimators';
import { createRegistry } from './registry';

/** Builds an estimator from config options; options it does not know are an error. */
export type AdvantageEstimatorFactory = (options?: Readonly<Record<string, unknown>>) => AdvantageEstimator;

// Config options are untyped; each factory validates every field it reads and rejects unknown ones.
const estimators = createRegistry<AdvantageEstimatorFactory>('advantage estimator', [
  ['grpo', (options) => grpoEstimator(options as GrpoOptions)],
  ['drgrpo', (options) => drGrpoEstimator(options as GroupBaselineOptions)],
  ['rloo', (options) => rlooEstimator(options as GroupBaselineOptions)],
]);

/** The estimator registered under `name` (grpo, drgrpo, rloo, or your own), built with `options`. */
export function getAdvantageEstimator(
  name: string,
  options: Readonly<Record<string, unknown>> = {},
): AdvantageEstimator {
  return estimators.get(name)(options);
}

/** Register an estimator under a config name; re-registering is an error unless `replace` is set. */
export function registerAdvantageEstimator(
  name: string,
  factory: AdvantageEstimatorFactory,
  options: { replace?: boolean } = {},
): void {
  estimators.register(name, factory, options);
}

export function advantageEstimatorNames(): string[] {
  return estimators.names();
}
