import type { Options } from 'tsup';

/** The build every package shares: ESM and CJS for Node 20, with .d.ts and .d.cts declarations. */
export function packageBuild(overrides: Options = {}): Options {
  return {
    entry: ['src/index.ts'],
    format: ['esm', 'cjs'],
    dts: true,
    clean: true,
    sourcemap: true,
    target: 'node20',
    platform: 'node',
    splitting: false,
    ...overrides,
  };
}
