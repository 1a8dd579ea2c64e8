import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.base';

// The trainer is an application: one ESM build, with the CLI as a second entry and the worker threads (SFT's
// gradient workers, the rollout workers) as further ones, which the bundle finds next to itself
// (src/workers/replica-workers.ts).
export default defineConfig(
  packageBuild({
    entry: {
      index: 'src/index.ts',
      cli: 'src/cli.ts',
      'sft-gradient-worker': 'src/sft/gradient-worker-entry.ts',
      'rollout-worker': 'src/workers/worker-entry.ts',
    },
    dts: { entry: { index: 'src/index.ts', cli: 'src/cli.ts' } },
    format: ['esm'],
  }),
);
