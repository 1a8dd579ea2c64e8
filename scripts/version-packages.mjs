// Cuts the versions (docs/CONTRIBUTING.md, Release): `pnpm version-packages`, the version step of
// .github/workflows/release.yml and of a release by hand. It applies the pending changesets (`changeset version`:
// versions bumped, CHANGELOG.md written, the changesets deleted), brings pnpm-lock.yaml in line with the new
// manifests, and then refuses a cut that would publish what users cannot depend on:
//
// - a public package left at 0.0.0 (no changeset named it: a first release needs a minor one, which gives 0.1.0),
//   or moved to 1.0.0 or beyond by a major changeset while the project is in 0.x (`--allow-1.0` for the release
//   that leaves 0.x on purpose);
// - a public package without `engines.node`, or without a CHANGELOG.md whose first version heading is its version;
// - a dependency of a public package on another workspace package written other than `workspace:^`, the range
//   `pnpm publish` turns into `^<version>` in the published manifest (`workspace:*` would pin the exact version).
//
// The API reports (packages/*/api-report) name no version, so the cut leaves them as they are.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const readManifest = (dir) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
const run = (command, args, stdout = 'inherit') =>
  execFileSync(command, args, { cwd: root, stdio: ['ignore', stdout, 'inherit'] });

const publicDirs = () =>
  readdirSync(join(root, 'packages'))
    .map((name) => join(root, 'packages', name))
    .filter((dir) => readManifest(dir).private !== true);

const before = new Map(publicDirs().map((dir) => [dir, readManifest(dir).version]));
run('pnpm', ['exec', 'changeset', 'version']);
// Workspace dependencies are `workspace:` ranges, so the lockfile rarely changes; --prefer-offline keeps a cut
// without network working when the store has every package.
run('pnpm', ['install', '--lockfile-only', '--prefer-offline', '--reporter=silent'], 'ignore');

const workspaceNames = new Set(
  ['packages', 'apps'].flatMap((folder) =>
    readdirSync(join(root, folder)).map((name) => readManifest(join(root, folder, name)).name),
  ),
);
const problems = [];
for (const dir of publicDirs()) {
  const manifest = readManifest(dir);
  const where = `${dir.slice(root.length + 1)}/package.json`;
  const { name, version } = manifest;
  if (version === '0.0.0')
    problems.push(
      `${name} is still 0.0.0: no pending changeset names it; add a minor one (\`pnpm changeset\`) for its first release`,
    );
  const leftZero = Number(version.split('.')[0]) >= 1 && Number(before.get(dir).split('.')[0]) < 1;
  if (leftZero && !process.argv.includes('--allow-1.0'))
    problems.push(
      `${name} went from ${before.get(dir)} to ${version}: a major changeset leaves 0.x; in 0.x a breaking change is minor (docs/CONTRIBUTING.md)`,
    );
  if (typeof manifest.engines?.node !== 'string') problems.push(`${where}: engines.node is missing`);
  const changelog = join(dir, 'CHANGELOG.md');
  const heading = existsSync(changelog) ? /^## (\S+)$/m.exec(readFileSync(changelog, 'utf8'))?.[1] : null;
  if (version !== '0.0.0' && heading !== version)
    problems.push(
      `${name}: CHANGELOG.md's newest version is ${heading ?? 'missing'}, package.json says ${version}`,
    );
  for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) {
    for (const [dependency, range] of Object.entries(manifest[field] ?? {})) {
      if (workspaceNames.has(dependency) && range !== 'workspace:^')
        problems.push(
          `${where}: ${field}.${dependency} is "${range}"; write "workspace:^" (published as ^<its version>)`,
        );
    }
  }
  console.log(
    `${name}: ${before.get(dir) === version ? `${version} (unchanged)` : `${before.get(dir)} -> ${version}`}`,
  );
}
if (problems.length > 0) {
  for (const problem of problems) console.error(`version-packages: ${problem}`);
  process.exit(1);
}
