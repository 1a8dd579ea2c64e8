import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.base';

// The library (src/index.ts) and the HTTP server (src/node.ts, the "./node" entry), each ESM and
// CJS with declarations; the CLI (dist/cli.js, the package's bin, ESM only) and the browser's entry
// (src/browser.ts, the "./browser" entry) are builds of their own, and the library build's clean leaves their
// files alone. Shims give the CJS build the import.meta.url by which src/python-programs.ts finds the package's
// python/ folder; the browser's build carries the Python programs and the worker script as text instead.
export default defineConfig([
  packageBuild({
    entry: ['src/index.ts', 'src/node.ts'],
    clean: ['!cli.js', '!cli.js.map', '!browser.*'],
    shims: true,
  }),
  packageBuild({ entry: { cli: 'src/cli.ts' }, format: ['esm'], dts: false, clean: false }),
  packageBuild({
    entry: ['src/browser.ts'],
    platform: 'browser',
    target: 'es2022',
    loader: { '.py': 'text', '.mjs': 'text' },
    clean: false,
  }),
]);
