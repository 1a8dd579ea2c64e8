import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.base';

// Two entries, each ESM and CJS with declarations: the portable one (index) and the Node one (node: the HTTP
// client of the inference-server adapters), which imports the portable one as '@taorl/rollout' rather than
// bundling a second copy of it.
export default defineConfig(
  packageBuild({
    entry: { index: 'src/index.ts', node: 'src/node.ts' },
    external: ['@taorl/rollout'],
  }),
);
