import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.base';

// The CLI is a second entry (dist/cli.js, the package's bin); declarations are for the library entry only.
export default defineConfig(
  packageBuild({ entry: ['src/index.ts', 'src/cli.ts'], dts: { entry: 'src/index.ts' } }),
);
