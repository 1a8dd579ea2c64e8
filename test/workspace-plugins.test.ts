import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Issue 51: a config in runs/my-task naming `plugins: [my-taorl-plugins]` could not find the package, and a single
// .mjs loss there could not import @taorl/grpo. The workspace's root links the example plug-in package, the
// packages a plug-in imports and TensorFlow.js, so both resolve from any folder under the repository's root.

const root = fileURLToPath(new URL('..', import.meta.url));

/** Where plain `node` (as the trainer runs, without the NODE_PATH that pnpm's shims set) resolves `specifier`. */
function resolveFrom(folder: string, specifier: string): string {
  const script = `const { createRequire } = require('node:module');
    const { realpathSync } = require('node:fs');
    process.stdout.write(realpathSync(createRequire(process.argv[1]).resolve(process.argv[2])));`;
  const { NODE_PATH: _unused, ...env } = process.env;
  const run = spawnSync(process.execPath, ['-e', script, join(root, folder, 'noop.js'), specifier], {
    encoding: 'utf8',
    env,
  });
  if (run.status !== 0)
    throw new Error(`${specifier} from ${folder}: ${run.stderr.split('\n')[4] ?? run.stderr}`);
  return run.stdout;
}

describe('plug-ins inside this repository', () => {
  it.each(['runs/my-task', 'experiments/one'])(
    "a config or module in %s resolves the example package, @taorl/grpo and the trainer's TensorFlow.js",
    (folder) => {
      expect(resolveFrom(folder, 'my-taorl-plugins')).toBe(join(root, 'examples/my-plugins/index.js'));
      expect(resolveFrom(folder, '@taorl/grpo/package.json')).toBe(join(root, 'packages/grpo/package.json'));
      // One copy of tfjs: a loss's tensors must be the trainer's.
      expect(resolveFrom(folder, '@tensorflow/tfjs')).toBe(
        resolveFrom('apps/trainer/src', '@tensorflow/tfjs'),
      );
    },
  );
});
