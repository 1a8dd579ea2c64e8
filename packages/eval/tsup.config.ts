import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.base';

// The grader pool's worker-thread entry and the CLI ship as extra files in dist/; shims give the CJS build an
// import.meta.url to locate the worker next to it.
export default defineConfig(
  packageBuild({
    entry: { index: 'src/index.ts', 'grader-worker': 'src/pool/worker.ts', cli: 'src/cli/main.ts' },
    dts: { entry: { index: 'src/index.ts' } },
    shims: true,
  }),
);
