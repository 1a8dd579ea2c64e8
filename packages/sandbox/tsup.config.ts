import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.base';

// The library (src/index.ts) and the HTTP server (src/node.ts, the "./node" entry), each ESM and
// CJS with declarations; the CLI (dist/cli.js, the package's bin, ESM only) is its own build, and the library
// build's clean leaves its files alone. Shims give the CJS build the import.meta.url by which
// src/python-programs.ts finds the package's python/ folder.
export default defineConfig([
  packageBuild({ entry: ['src/index.ts', 'src/node.ts'], clean: ['!cli.js', '!cli.js.map'], shims: true }),
  packageBuild({ entry: { cli: 'src/cli.ts' }, format: ['esm'], dts: false, clean: false }),
]);
