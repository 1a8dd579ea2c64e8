import { build } from 'esbuild';
import { defineConfig, type Options } from 'tsup';
import { packageBuild } from '../../tsup.base';

type EsbuildPlugin = NonNullable<Options['esbuildPlugins']>[number];

/**
 * Replaces src/pool/worker-source.ts with the grader worker (src/pool/worker.ts and all it imports) bundled into
 * one CommonJS script, returned as a string: the pool starts its workers from that string, so @taorl/eval/node
 * carries its worker inside and keeps working when an application bundles it.
 */
const inlineGraderWorker: EsbuildPlugin = {
  name: 'inline-grader-worker',
  setup(plugin) {
    plugin.onResolve({ filter: /\/worker-source$/ }, (args) => ({
      path: args.path,
      namespace: 'grader-worker',
    }));
    plugin.onLoad({ filter: /.*/, namespace: 'grader-worker' }, async () => {
      const bundled = await build({
        entryPoints: ['src/pool/worker.ts'],
        bundle: true,
        write: false,
        platform: 'node',
        format: 'cjs',
        target: 'node20',
      });
      const code = bundled.outputFiles[0]?.text;
      if (code === undefined) throw new Error('inline-grader-worker: esbuild produced no worker bundle');
      return {
        contents: `export function graderWorkerSource() { return ${JSON.stringify(code)}; }`,
        loader: 'js',
      };
    });
  },
};

// Two entries, each ESM and CJS with declarations: the portable one (index) and the Node one (node), which
// imports the portable one as '@taorl/eval' rather than bundling a second copy of it. The CLI (the package's
// bin, ESM only) is its own build; the first build's clean leaves its files alone.
export default defineConfig([
  packageBuild({
    entry: { index: 'src/index.ts', node: 'src/node.ts' },
    external: ['@taorl/eval'],
    // The CJS build gets an import.meta.url, which defaultBenchmarkDir resolves the shipped files from.
    shims: true,
    clean: ['!cli.js', '!cli.js.map'],
    esbuildPlugins: [inlineGraderWorker],
  }),
  packageBuild({
    entry: { cli: 'src/cli/main.ts' },
    format: ['esm'],
    dts: false,
    clean: false,
    external: ['@taorl/eval'],
  }),
]);
