import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

// docs/index.md, "Where the RL step lives": the step's entry brings neither TensorFlow.js nor a Node built-in, so
// a page can bundle it; the update (which needs tfjs) is passed in, and @taorl/grpo's types are inlined at build.

const here = fileURLToPath(new URL('.', import.meta.url));

/** The files a browser bundle of `contents` holds code of. */
async function bundledFiles(contents: string): Promise<string[]> {
  const result = await build({
    stdin: { contents, resolveDir: here, loader: 'ts' },
    bundle: true,
    write: false,
    metafile: true,
    platform: 'browser',
    format: 'esm',
    conditions: ['@taorl/source'],
    logLevel: 'silent',
  });
  return Object.values(result.metafile.outputs).flatMap((output) => Object.keys(output.inputs));
}

describe("@taorl/rl's main entry", () => {
  it('bundles for a browser without TensorFlow.js, @taorl/grpo or @taorl/model', async () => {
    const files = await bundledFiles(`export * from '@taorl/rl';`);
    expect(files.some((file) => file.includes('packages/rl/src/rl-step.ts'))).toBe(true);
    expect(files.filter((file) => /@tensorflow|packages\/(grpo|model)\//.test(file))).toEqual([]);
  });

  it('the check sees tfjs where an entry brings it (@taorl/model)', async () => {
    const files = await bundledFiles(`export { grpoUpdate } from '@taorl/model';`);
    expect(files.some((file) => file.includes('@tensorflow'))).toBe(true);
  });
});
