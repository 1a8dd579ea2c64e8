import { type AnswerDiscriminabilityOptions, answerDiscriminability } from './answer-discriminability';
import { type DynamicSamplingOptions, dynamicSampling } from './dynamic-sampling';
import { type ExecutionValidityOptions, executionValidity } from './execution-validity';
import { type OverlongFilterOptions, overlongFilter } from './overlong';
import { type ToolAwareFilterOptions, toolAwareFilter } from './tool-aware';
import type { Filter } from './types';
import { type VoidTurnOptions, voidTurn } from './void-turn';

/** Builds a filter from config options; options it does not know are an error. */
export type FilterFactory = (options?: Readonly<Record<string, unknown>>) => Filter;

// Config options are untyped; each factory validates every field it reads and rejects unknown ones.
const factories = new Map<string, FilterFactory>([
  ['execution-validity', (options) => executionValidity(options as ExecutionValidityOptions)],
  ['answer-discriminability', (options) => answerDiscriminability(options as AnswerDiscriminabilityOptions)],
  ['tool-aware', (options) => toolAwareFilter(options as ToolAwareFilterOptions)],
  ['dynamic-sampling', (options) => dynamicSampling(options as DynamicSamplingOptions)],
  ['void-turn', (options) => voidTurn(options as VoidTurnOptions)],
  ['overlong', (options) => overlongFilter(options as OverlongFilterOptions)],
]);

/**
 * Make a filter available by name (verl's registry style), e.g. for a config string. Re-registering a name is an
 * error unless `replace` is set.
 */
export function registerFilter(
  name: string,
  factory: FilterFactory,
  options: { replace?: boolean } = {},
): void {
  if (factories.has(name) && options.replace !== true) {
    throw new Error(`filter '${name}' is already registered; pass { replace: true } to replace it`);
  }
  factories.set(name, factory);
}

/** Build the filter registered under `name` with the given options. */
export function getFilter(name: string, options: Readonly<Record<string, unknown>> = {}): Filter {
  const factory = factories.get(name);
  if (factory === undefined) {
    throw new Error(`unknown filter '${name}' (registered: ${filterNames().join(', ')})`);
  }
  return factory(options);
}

export function filterNames(): string[] {
  return [...factories.keys()];
}
