import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

// Built-in plug-ins register themselves in the files that define them (docs/plug-ins.md), so a bundler must keep
// those files even when an app uses none of their exports. Each package's `sideEffects` names the builds that
// contain them, and only those: the published package holds no sources (each entry is one module there, so a
// bundler that drops a side-effect-free build drops every registration in it; `pnpm test:packaging` bundles the
// installed packages to check that). Bundles of the sources (the "@taorl/source" condition, as the browser smoke
// test builds) ignore `sideEffects`. This checks the list against the sources.

const root = fileURLToPath(new URL('..', import.meta.url));
/** Each package with plug-ins, and a function of its main entry that an app might import alone. */
const namesFunction: Record<string, string> = {
  filter: 'filterNames',
  advantage: 'advantageEstimatorNames',
  grpo: 'policyLossNames',
  sandbox: 'toolFormatNames',
};
const REGISTERS = /^\s*(\w+\.registerBuiltIn|registerBuiltInFormat)\(/m;

interface EntryConditions {
  '@taorl/source'?: string;
  import?: { default: string };
  require?: { default: string };
}
interface Manifest {
  private?: boolean;
  sideEffects: boolean | string[];
  exports: Record<string, EntryConditions | string>;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  );
}

const registers = (file: string): boolean => REGISTERS.test(readFileSync(join(root, file), 'utf8'));

/** The files (relative to the root) that `code` pulls in when bundled from the sources, sideEffects ignored. */
async function bundledSources(code: string, resolveDir: string, keepAll: boolean): Promise<string[]> {
  const result = await build({
    stdin: { contents: code, resolveDir },
    absWorkingDir: root,
    bundle: true,
    write: false,
    metafile: true,
    platform: 'node',
    format: 'esm',
    conditions: ['@taorl/source'],
    external: ['@tensorflow/*'],
    // The sandbox's browser entry imports its Python programs and worker script as text, as its tsup build does
    // (only that script: other .mjs files are modules).
    loader: { '.py': 'text' },
    plugins: [
      {
        name: 'pyodide-worker-as-text',
        setup(bundle) {
          bundle.onLoad({ filter: /[\\/]pyodide[\\/]worker\.mjs$/ }, (args) => ({
            contents: readFileSync(args.path, 'utf8'),
            loader: 'text',
          }));
        },
      },
    ],
    ignoreAnnotations: keepAll,
    logLevel: 'silent',
  });
  return Object.values(result.metafile.outputs).flatMap((output) =>
    Object.entries(output.inputs)
      .filter(([, input]) => input.bytesInOutput > 0)
      .map(([file]) => file),
  );
}

const publishedPackages = readdirSync(join(root, 'packages')).filter(
  (name) =>
    (JSON.parse(readFileSync(join(root, 'packages', name, 'package.json'), 'utf8')) as Manifest).private !==
    true,
);

describe('self-registering built-in plug-ins', () => {
  it.each(Object.keys(namesFunction))(
    '@taorl/%s: sideEffects names only files the package publishes, and some file registers a plug-in',
    (name) => {
      const dir = join(root, 'packages', name);
      const registering = sourceFiles(join(dir, 'src')).filter((file) => registers(relative(root, file)));
      expect(registering.length).toBeGreaterThan(0);
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest & {
        files: string[];
      };
      const listed = Array.isArray(manifest.sideEffects) ? manifest.sideEffects : [];
      // Issue 52: entries naming ./src files, which no tarball holds, were published.
      for (const file of listed)
        expect(
          manifest.files.some((published) => file.startsWith(`./${published}/`)),
          file,
        ).toBe(true);
    },
  );

  it.each(publishedPackages)(
    '@taorl/%s: sideEffects names the builds of exactly the entries that register a plug-in when imported',
    async (name) => {
      const dir = join(root, 'packages', name);
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;
      const listed = Array.isArray(manifest.sideEffects) ? manifest.sideEffects : [];
      for (const [subpath, conditions] of Object.entries(manifest.exports)) {
        if (typeof conditions === 'string' || conditions['@taorl/source'] === undefined) continue;
        const builds = [conditions.import?.default, conditions.require?.default];
        // Everything a bare `import '<package><subpath>'` runs, in this package or a sibling it imports.
        const imported = await bundledSources(`import '@taorl/${name}${subpath.slice(1)}';`, dir, true);
        const registersPlugIns = imported.some((file) => file.startsWith('packages/') && registers(file));
        for (const file of builds) {
          expect(listed.includes(file ?? ''), `${subpath}: ${file} listed in sideEffects`).toBe(
            registersPlugIns,
          );
        }
      }
    },
  );
});
