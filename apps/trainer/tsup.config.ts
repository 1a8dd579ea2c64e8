import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.base';

// The trainer is an application: one ESM build, with the CLI as a second entry and SFT's gradient-worker thread
// as a third, which the bundle finds next to itself (src/sft/gradient-workers.ts).
export default defineConfig(
  packageBuild({
    entry: {
      index: 'src/index.ts',
      cli: 'src/cli.ts',
      'sft-gradient-worker': 'src/sft/gradient-worker-entry.ts',
    },
    dts: { entry: { index: 'src/index.ts', cli: 'src/cli.ts' } },
    format: ['esm'],
  }),
);
