import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.base';

// The portable library (src/index.ts), the Node-only server (src/node.ts, the "./node" entry) and the CLI
// (dist/cli.js, the package's bin); declarations for the two library entries.
export default defineConfig(
  packageBuild({
    entry: ['src/index.ts', 'src/node.ts', 'src/cli.ts'],
    dts: { entry: ['src/index.ts', 'src/node.ts'] },
  }),
);
