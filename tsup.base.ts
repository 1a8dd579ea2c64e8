import type { Options } from 'tsup';

/**
 * The workspace's internal modules, never published: each package that uses one carries its own copy in its
 * build (code and declarations), so a user installs one tarball with no extra dependency.
 */
const internalModules = ['@taorl/plugin-registry'];

/** The build every package shares: ESM and CJS for Node 20, with .d.ts and .d.cts declarations. */
export function packageBuild({ dts, ...overrides }: Options = {}): Options {
  // A package's own dts settings (its entries) keep the internal modules inlined.
  const declarations = typeof dts === 'object' ? dts : {};
  return {
    entry: ['src/index.ts'],
    format: ['esm', 'cjs'],
    dts: dts === false ? false : { resolve: internalModules, ...declarations },
    clean: true,
    sourcemap: true,
    target: 'node20',
    platform: 'node',
    splitting: false,
    noExternal: internalModules,
    ...overrides,
  };
}
