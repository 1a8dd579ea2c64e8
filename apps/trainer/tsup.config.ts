import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.base';

// The trainer is an application: one ESM build, with the CLI as a second entry and the policy workers' thread
// (src/workers/worker-entry.ts) as a third, which the bundle finds next to itself
// (src/workers/replica-workers.ts).
export default defineConfig(
  packageBuild({
    entry: {
      index: 'src/index.ts',
      cli: 'src/cli.ts',
      'policy-worker': 'src/workers/worker-entry.ts',
    },
    dts: { entry: { index: 'src/index.ts', cli: 'src/cli.ts' } },
    format: ['esm'],
  }),
);
