import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

// Built-in plug-ins register themselves in the files that define them (docs/plug-ins.md), so a bundler must keep
// those files even when an app uses none of their exports. The published builds are one module per entry and keep
// them; a bundle of the sources (the "@taorl/source" condition) keeps them only because each package's
// `sideEffects` lists them. This checks that every self-registering file of every package is listed.

const root = fileURLToPath(new URL('..', import.meta.url));
/** Each package with plug-ins, and a function of its main entry that an app might import alone. */
const namesFunction: Record<string, string> = {
  filter: 'filterNames',
  advantage: 'advantageEstimatorNames',
  grpo: 'policyLossNames',
  sandbox: 'toolFormatNames',
};
const REGISTERS = /^\s*(\w+\.registerBuiltIn|registerBuiltInFormat)\(/m;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  );
}

describe('self-registering built-in plug-ins', () => {
  it.each(Object.keys(namesFunction))(
    '@taorl/%s: a bundle of the sources that only lists names keeps every file that registers one',
    async (name) => {
      const dir = join(root, 'packages', name);
      const registering = sourceFiles(join(dir, 'src'))
        .filter((file) => REGISTERS.test(readFileSync(file, 'utf8')))
        .map((file) => relative(root, file));
      expect(registering.length).toBeGreaterThan(0);
      const result = await build({
        // An app that imports one function and none of the plug-ins' own exports.
        stdin: { contents: `export { ${namesFunction[name]} } from '@taorl/${name}';`, resolveDir: dir },
        absWorkingDir: root,
        bundle: true,
        write: false,
        metafile: true,
        platform: 'node',
        format: 'esm',
        conditions: ['@taorl/source'],
        external: ['@tensorflow/*'],
        logLevel: 'silent',
      });
      const bundled = Object.values(result.metafile.outputs).flatMap((output) => Object.keys(output.inputs));
      for (const file of registering) expect(bundled, file).toContain(file);
    },
  );
});
