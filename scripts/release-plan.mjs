// What `pnpm release` would publish, and where (docs/CONTRIBUTING.md, Release): for every public package under
// packages/, its version, the registry it would go to, whether that version is there already, and the files of
// its tarball. `pnpm release:dry-run` is this after a build; `pnpm release` runs it before `changeset publish` and
// stops when it fails.
//
// Two tools choose the registry: changesets looks versions up with `npm info` against `npm_config_registry` (or
// `npm_config_@taorl:registry`; the public registry when unset) and then runs `pnpm publish` per package, and pnpm
// publishes to the registry of its .npmrc files (pnpm 12 does not read `npm_config_registry`). When the two
// differ, changesets would check one registry and pnpm publish to another: this fails then, naming both.
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const PUBLIC_REGISTRY = 'https://registry.npmjs.org/';
const withSlash = (url) => (url.endsWith('/') ? url : `${url}/`);

/** The registry changesets uses for a @taorl package (its getCorrectRegistry: the scoped variable first). */
function changesetsRegistry() {
  // biome-ignore lint/suspicious/noUndeclaredEnvVars: changesets' own variables; this script is no turbo task.
  const configured = process.env['npm_config_@taorl:registry'] || process.env.npm_config_registry;
  return configured ? withSlash(configured) : PUBLIC_REGISTRY;
}

/** The registry `pnpm publish` names for the package in `dir`, read from its own dry run ("📦 name@1.0.0 → url"). */
function pnpmRegistry(dir, registry) {
  const run = spawnSync('pnpm', ['publish', '--dry-run', '--no-git-checks'], {
    cwd: dir,
    encoding: 'utf8',
    // changesets passes its registry to pnpm this way; pnpm ignores it, which is what this shows.
    env: { ...process.env, npm_config_registry: registry },
  });
  const target = /→\s*(\S+)/.exec(run.stdout + run.stderr);
  if (run.status !== 0 || target === null) {
    throw new Error(`pnpm publish --dry-run failed in ${dir}:\n${run.stdout}${run.stderr}`);
  }
  return withSlash(target[1]);
}

/** Whether `name@version` is on `registry` already (changesets then skips it); throws when the registry fails. */
function isPublished(name, version, registry) {
  const view = spawnSync(
    'npm',
    ['view', `${name}@${version}`, 'version', '--json', `--registry=${registry}`],
    {
      encoding: 'utf8',
    },
  );
  if (view.status === 0) return view.stdout.trim() !== '';
  if (/E404/.test(view.stdout + view.stderr)) return false;
  throw new Error(`npm view ${name}@${version} --registry=${registry} failed:\n${view.stdout}${view.stderr}`);
}

const packageDirs = readdirSync('packages')
  .map((name) => resolve('packages', name))
  .filter((dir) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).private !== true);

const registry = changesetsRegistry();
const manifests = packageDirs.map((dir) => ({
  dir,
  ...JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')),
}));
const mismatches = manifests
  .map(({ dir, name }) => ({ name, pnpmTarget: pnpmRegistry(dir, registry) }))
  .filter(({ pnpmTarget }) => pnpmTarget !== registry);
for (const { name, pnpmTarget } of mismatches) {
  console.error(
    `release plan: ${name}: changesets would check ${registry} but pnpm would publish to ${pnpmTarget}; set ` +
      'npm_config_registry and the registry of an .npmrc that pnpm reads alike (docs/CONTRIBUTING.md, Release)',
  );
}
if (mismatches.length > 0) process.exit(1);

let toPublish = 0;
for (const { dir, name, version } of manifests) {
  const published = isPublished(name, version, registry);
  const files = JSON.parse(
    execFileSync('pnpm', ['pack', '--dry-run', '--json'], {
      cwd: dir,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  ).files.map((file) => file.path);
  if (!published) toPublish += 1;
  console.log(
    `${published ? 'skip   ' : 'publish'} ${name}@${version} → ${registry}` +
      `${published ? ' (this version is there already)' : ''}, ${files.length} files:`,
  );
  for (const file of files) console.log(`          ${file}`);
}
console.log(`\n${toPublish} of ${manifests.length} packages would be published to ${registry}`);
