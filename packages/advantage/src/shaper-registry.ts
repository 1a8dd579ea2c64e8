import { type AepoShaperOptions, aepoShaper } from './aepo';
import { chengShaper, type EntropyBonusOptions, type TaoShaperOptions, taoShaper } from './entropy-bonus';
import { noShaper } from './no-shaper';
import { createRegistry } from './registry';
import type { EntropyShaper } from './shaping';

/** Builds a shaper from config options; options it does not know are an error. */
export type EntropyShaperFactory = (options?: Readonly<Record<string, unknown>>) => EntropyShaper;

// Config options are untyped; each factory validates every field it reads and rejects unknown ones.
const shapers = createRegistry<EntropyShaperFactory>('entropy shaper', [
  ['tao', (options) => taoShaper(options as TaoShaperOptions)],
  ['cheng', (options) => chengShaper(options as EntropyBonusOptions)],
  ['aepo', (options) => aepoShaper(options as AepoShaperOptions)],
  ['none', (options) => noShaper(options)],
]);

/** The shaper registered under `name` (tao, cheng, aepo, none, or your own), built with `options`. */
export function getEntropyShaper(
  name: string,
  options: Readonly<Record<string, unknown>> = {},
): EntropyShaper {
  return shapers.get(name)(options);
}

/** Register a shaper under a config name; re-registering is an error unless `replace` is set. */
export function registerEntropyShaper(
  name: string,
  factory: EntropyShaperFactory,
  options: { replace?: boolean } = {},
): void {
  shapers.register(name, factory, options);
}

export function entropyShaperNames(): string[] {
  return shapers.names();
}
