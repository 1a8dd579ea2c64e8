import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.base';

// Two entries, each ESM and CJS with declarations: the portable one (index) and the Node one (node: Hugging Face
// folders on disk), which imports the portable one as '@taorl/model' rather than bundling a second copy of it, so
// TransformerPolicy is one class whichever entry a user imports.
export default defineConfig(
  packageBuild({
    entry: { index: 'src/index.ts', node: 'src/node.ts' },
    external: ['@taorl/model'],
  }),
);
