// What `pnpm release` would publish, and where (docs/CONTRIBUTING.md, Release): for every public package under
// packages/, its version, the registry it would go to, whether that version is there already, and the files of
// its tarball. `pnpm release:plan` is this after a build; `pnpm release` runs it before `changeset publish` and
// stops when it fails.
//
// Two tools choose the registry: changesets looks versions up with `npm info` against `npm_config_registry` (or
// `npm_config_@taorl:registry`; the public registry when unset) and then runs `pnpm publish` per package, and pnpm
// publishes to the registry of its .npmrc files (pnpm 12 does not read `npm_config_registry`). When the two
// differ, changesets would check one registry and pnpm publish to another: this fails then, naming both.
import { execFile, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

const PUBLIC_REGISTRY = 'https://registry.npmjs.org/';
const withSlash = (url) => (url.endsWith('/') ? url : `${url}/`);

/** The registry changesets uses for a @taorl package (its getCorrectRegistry: the scoped variable first). */
function changesetsRegistry() {
  // biome-ignore lint/suspicious/noUndeclaredEnvVars: changesets' own variables; this script is no turbo task.
  const configured = process.env['npm_config_@taorl:registry'] || process.env.npm_config_registry;
  return configured ? withSlash(configured) : PUBLIC_REGISTRY;
}

/**
 * The registry `pnpm publish` names for each package under packages/, read from its own dry run
 * ("📦 @taorl/filter@1.0.0 → https://registry.npmjs.org/"), by package name.
 */
function pnpmRegistries(registry) {
  const run = spawnSync(
    'pnpm',
    ['-r', '--filter', './packages/*', 'publish', '--dry-run', '--no-git-checks'],
    {
      encoding: 'utf8',
      // changesets passes its registry to pnpm this way; pnpm ignores it, which is what this shows.
      env: { ...process.env, npm_config_registry: registry },
    },
  );
  if (run.status !== 0) throw new Error(`pnpm -r publish --dry-run failed:\n${run.stdout}${run.stderr}`);
  return new Map(
    [...(run.stdout + run.stderr).matchAll(/📦 (\S+)@[^@\s]+ → (\S+)/g)].map(([, name, url]) => [
      name,
      withSlash(url),
    ]),
  );
}

/** Whether `name@version` is on `registry` already (changesets then skips it); throws when the registry fails. */
async function isPublished(name, version, registry) {
  try {
    const { stdout } = await execFileAsync('npm', [
      'view',
      `${name}@${version}`,
      'version',
      '--json',
      `--registry=${registry}`,
    ]);
    return stdout.trim() !== '';
  } catch (error) {
    if (/E404/.test(`${error.stdout}${error.stderr}`)) return false;
    throw new Error(
      `npm view ${name}@${version} --registry=${registry} failed:\n${error.stdout}${error.stderr}`,
    );
  }
}

/** The files of the package's tarball, as `pnpm pack` would write it. */
async function tarballFiles(dir) {
  const { stdout } = await execFileAsync('pnpm', ['pack', '--dry-run', '--json'], { cwd: dir });
  return JSON.parse(stdout).files.map((file) => file.path);
}

const packageDirs = readdirSync('packages')
  .map((name) => resolve('packages', name))
  .filter((dir) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).private !== true);

const registry = changesetsRegistry();
const manifests = packageDirs.map((dir) => ({
  dir,
  ...JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')),
}));
const pnpmTargets = pnpmRegistries(registry);
const mismatches = manifests
  .map(({ name }) => ({ name, pnpmTarget: pnpmTargets.get(name) ?? 'nowhere (pnpm would not publish it)' }))
  .filter(({ pnpmTarget }) => pnpmTarget !== registry);
for (const { name, pnpmTarget } of mismatches) {
  console.error(
    `release plan: ${name}: changesets would check ${registry} but pnpm would publish to ${pnpmTarget}; set ` +
      'npm_config_registry and the registry of an .npmrc that pnpm reads alike (docs/CONTRIBUTING.md, Release)',
  );
}
if (mismatches.length > 0) process.exit(1);

const plans = await Promise.all(
  manifests.map(async ({ dir, name, version }) => ({
    name,
    version,
    published: await isPublished(name, version, registry),
    files: await tarballFiles(dir),
  })),
);
for (const { name, version, published, files } of plans) {
  console.log(
    `${published ? 'skip   ' : 'publish'} ${name}@${version} → ${registry}` +
      `${published ? ' (this version is there already)' : ''}, ${files.length} files:`,
  );
  for (const file of files) console.log(`          ${file}`);
}
const toPublish = plans.filter(({ published }) => !published).length;
console.log(`\n${toPublish} of ${manifests.length} packages would be published to ${registry}`);
