import { createRegistry, type RawOptions, type Registry, registerFunction } from '@taorl/plugin-registry';
import type { Filter } from './types';

/**
 * The filters selectable by name (docs/plug-ins.md describes the contract every taorl registry follows). Each
 * built-in registers itself where it is defined.
 */
export const filterRegistry: Registry<Filter> = createRegistry<Filter>('filter', 'filter', {
  methods: ['apply'],
});

/** Builds a filter from config options; options it does not know are an error. */
export type FilterFactory = (options: RawOptions) => Filter;

/**
 * Makes a filter available by name, e.g. for a config string: `registerFilter(name, factory)` with a factory that
 * checks its own options, or `registerFilter(name, factory, { schema })` with a zod (any Standard Schema) schema of
 * the options. A second registration of a name is an error unless `{ replace: true }` is given.
 *
 * @function
 */
export const registerFilter = registerFunction(filterRegistry);

/** Builds the filter registered under `name` with the given options. */
export function getFilter(name: string, options: RawOptions = {}): Filter {
  return filterRegistry.create(name, options);
}

export function filterNames(): string[] {
  return filterRegistry.names();
}
