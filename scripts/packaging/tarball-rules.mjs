// What a published package must look like beyond what publint and are-the-types-wrong check: the files its
// tarball holds, a portable main entry, README links that work on the npm page, the licence text, the README
// example. Used by scripts/check-packages.mjs.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

/** The repository every package names in its `repository` field; README links point into it. */
export const REPOSITORY = { type: 'git', url: 'git+https://github.com/taorl/taorl.git' };
const REPOSITORY_WEB = 'https://github.com/taorl/taorl';

/**
 * The packages whose main entry runs in any JavaScript runtime (the root README says so): no Node built-in,
 * directly or through a dependency. Node-only code of theirs is in a './node' entry.
 */
export const PORTABLE_MAIN = new Set([
  '@taorl/advantage',
  '@taorl/data',
  '@taorl/eval',
  '@taorl/filter',
  '@taorl/model',
  '@taorl/rl',
  '@taorl/rollout',
]);

/**
 * Every subpath export's build (ESM and CJS, declarations, source maps), the package.json of each subpath folder
 * ('node/package.json'), and every bin with its map.
 */
export function builtFiles(manifest) {
  const entries = Object.entries(manifest.publishConfig.exports).filter(
    ([subpath]) => subpath !== './package.json',
  );
  const files = entries.flatMap(([, conditions]) => {
    const base = conditions.import.default.replace(/^\.\//, '').replace(/\.js$/, '');
    return [
      `${base}.js`,
      `${base}.js.map`,
      `${base}.cjs`,
      `${base}.cjs.map`,
      `${base}.d.ts`,
      `${base}.d.cts`,
    ];
  });
  // TypeScript's node10 resolution ignores `exports`: a subpath's folder with a package.json points it at the build.
  const subpathManifests = entries
    .map(([subpath]) => subpath)
    .filter((subpath) => subpath !== '.')
    .map((subpath) => `${subpath.replace(/^\.\//, '')}/package.json`);
  const bins = Object.values(manifest.bin ?? {}).flatMap((path) => {
    const file = path.replace(/^\.\//, '');
    return [file, `${file}.map`];
  });
  return [...files, ...subpathManifests, ...bins];
}

/**
 * Declarations two entries share, which tsup writes to a hash-named file their .d.ts files import
 * (dist/sandboxfusion-Ce2P4xxM.d.ts): part of the types, not a build of its own.
 */
export function isDeclarationChunk(path) {
  return /^dist\/[\w.-]+-[\w-]{8}\.d\.c?ts$/.test(path);
}

/** The subpath exports with code: '.', './node'. */
export function codeSubpaths(manifest) {
  return Object.keys(manifest.publishConfig.exports).filter((subpath) => subpath !== './package.json');
}

/**
 * Bundles a built entry for the browser; esbuild refuses a Node built-in there (naming the file that imports it),
 * so null means the entry and everything it imports run without Node, and a string says what pulls Node in.
 */
export async function browserBundleProblem(entryFile) {
  try {
    await build({
      entryPoints: [entryFile],
      bundle: true,
      platform: 'browser',
      write: false,
      logLevel: 'silent',
    });
    return null;
  } catch (error) {
    return error.message;
  }
}

/**
 * Links in a README that do not work on the npm page: relative ones (the package folder's neighbours are not in
 * the tarball) and links into this repository's main branch whose file does not exist in the checkout.
 */
export function readmeLinkProblems(readme, repoRoot) {
  const problems = [];
  for (const [, target] of readme.matchAll(/\]\(([^)\s]+)\)/g)) {
    if (target.startsWith('#')) continue;
    if (!/^https?:\/\//.test(target)) {
      problems.push(`relative link ${target}`);
      continue;
    }
    const inRepository = target.startsWith(`${REPOSITORY_WEB}/`)
      ? target.slice(REPOSITORY_WEB.length).match(/^\/(?:blob|tree)\/main\/([^#?]+)/)
      : null;
    if (inRepository && !existsSync(join(repoRoot, inRepository[1])))
      problems.push(`no such file: ${target}`);
  }
  return problems;
}

/** The README's example: the first js block under "## Example", or null. */
export function readmeExample(readme) {
  const section = readme.split(/^## Example\s*$/m)[1];
  return section?.match(/^```js\n([\s\S]*?)^```$/m)?.[1] ?? null;
}

/**
 * The README's example as a CommonJS user writes it: each import at its top a `require`, and the rest in an async
 * function, since CommonJS has no top-level await. Throws for an import it cannot convert or one further down.
 */
export function commonJsExample(example) {
  const lines = example.split('\n');
  const requires = [];
  let first = 0;
  for (; first < lines.length; first += 1) {
    const line = lines[first];
    const named = /^import \{([^}]*)\} from '([^']+)';$/.exec(line);
    const namespace = /^import \* as (\w+) from '([^']+)';$/.exec(line);
    if (named) requires.push(`const {${named[1].replace(/\s+as\s+/g, ': ')}} = require('${named[2]}');`);
    else if (namespace) requires.push(`const ${namespace[1]} = require('${namespace[2]}');`);
    else if (line.trim() !== '') break;
  }
  const body = lines.slice(first).join('\n');
  const stray = /^\s*import\b.*$/m.exec(body);
  if (stray) throw new Error(`the README example's import cannot be written as a require: ${stray[0]}`);
  return `${requires.join('\n')}\n(async () => {\n${body}})().catch((error) => {\n  console.error(error);\n  process.exitCode = 1;\n});\n`;
}

/** Whether a LICENSE file is the whole Apache License 2.0, not a short notice pointing to it. */
export function isFullApacheLicense(text) {
  return (
    text.length > 10_000 &&
    text.includes('TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION') &&
    text.includes('END OF TERMS AND CONDITIONS')
  );
}
