import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.base';

// The trainer is an application: one ESM build, with the CLI as a second entry.
export default defineConfig(packageBuild({ entry: ['src/index.ts', 'src/cli.ts'], format: ['esm'] }));
