// Packaging checks on the built workspace: every publishable package passes publint (strict, packed with pnpm so
// publishConfig applies) and are-the-types-wrong, and its ESM and CJS builds load in Node with the same exports.
// pnpm pack shows each tarball holds only what users need. Then the packed tarballs are installed into a project
// outside the workspace and exercised by the oldest Node the `engines` fields allow (scripts/packaging/). The
// trainer's built CLI answers an unknown command with usage and exit code 2, on this Node and on the oldest.
import { execFileSync, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { installNode, oldestNodeVersion } from './packaging/oldest-node.mjs';

const failures = [];
const check = (ok, label) => {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${label}`);
  if (!ok) failures.push(label);
};

const builtFiles = ['index.js', 'index.js.map', 'index.cjs', 'index.cjs.map', 'index.d.ts', 'index.d.cts'];
// Private workspace packages (the internal @taorl/plugin-registry) are bundled into the others, never published.
const packageDirs = readdirSync('packages')
  .map((name) => resolve('packages', name))
  .filter((dir) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).private !== true);

/**
 * The data files a package ships: each benchmark's test.jsonl and READMEs under data/benchmarks (only
 * @taorl/eval has that folder). The verl parquet copies stay in the repository (docs/packages/eval.md).
 */
function shippedData(dir) {
  const root = join(dir, 'data', 'benchmarks');
  if (!existsSync(root)) return [];
  const files = ['data/benchmarks/README.md'];
  for (const name of readdirSync(root, { withFileTypes: true }).filter((entry) => entry.isDirectory())) {
    for (const file of ['test.jsonl', 'README.md', 'UPSTREAM_README.md']) {
      if (existsSync(join(root, name.name, file))) files.push(`data/benchmarks/${name.name}/${file}`);
    }
  }
  return files;
}

for (const dir of packageDirs) {
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const name = manifest.name;

  const publint = spawnSync('pnpm', ['exec', 'publint', 'run', dir, '--pack', 'pnpm', '--strict'], {
    encoding: 'utf8',
  });
  check(publint.status === 0, `${name}: publint --strict`);
  if (publint.status !== 0) console.log(publint.stdout + publint.stderr);

  const attw = spawnSync('pnpm', ['exec', 'attw', '--pack', dir, '--format', 'ascii'], { encoding: 'utf8' });
  check(attw.status === 0, `${name}: are-the-types-wrong (node10, node16 CJS/ESM, bundler)`);
  if (attw.status !== 0) console.log(attw.stdout + attw.stderr);

  const packed = JSON.parse(
    execFileSync('pnpm', ['pack', '--dry-run', '--json'], {
      cwd: dir,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  const shipped = packed.files.map((file) => file.path);
  const required = [
    'LICENSE',
    'README.md',
    'package.json',
    ...builtFiles.map((file) => `dist/${file}`),
    ...shippedData(dir),
  ];
  // A subpath entry ("./node") has a stub folder with a package.json, for resolvers without "exports" (node10).
  const subpathStubs = Object.keys(manifest.exports ?? {})
    .filter((key) => /^\.\/[\w-]+$/.test(key) && key !== './package.json')
    .map((key) => `${key.slice(2)}/package.json`);
  const unexpected = shipped.filter(
    (path) =>
      !required.includes(path) && !subpathStubs.includes(path) && !/^(dist\/|CHANGELOG\.md$)/.test(path),
  );
  const missing = required.filter((path) => !shipped.includes(path));
  check(
    missing.length === 0 && unexpected.length === 0,
    `${name}: the tarball holds the build, README.md, LICENSE, package.json and the data it ships only (${shipped.length} files)` +
      [
        ...missing.map((path) => `; missing ${path}`),
        ...unexpected.map((path) => `; unexpected ${path}`),
      ].join(''),
  );

  const esm = await import(pathToFileURL(join(dir, 'dist/index.js')).href);
  const cjs = createRequire(import.meta.url)(join(dir, 'dist/index.cjs'));
  const esmNames = Object.keys(esm).sort().join(',');
  const cjsNames = Object.keys(cjs)
    .filter((key) => key !== '__esModule')
    .sort()
    .join(',');
  check(esmNames.length > 0 && esmNames === cjsNames, `${name}: ESM and CJS builds export the same names`);
}

const readManifest = (dir) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
const oldestVersions = [
  ...new Set(['.', 'apps/trainer', ...packageDirs].map((dir) => oldestNodeVersion(readManifest(dir)))),
];
const oldestBinaries = oldestVersions.map((version) =>
  installNode(version, resolve('node_modules', '.cache', 'oldest-node')),
);

// A project outside the workspace that depends on every packed tarball; overrides point the packages'
// dependencies on each other at the tarballs too. Third-party dependencies come from pnpm's store.
const project = mkdtempSync(join(tmpdir(), 'taorl-packed-'));
try {
  mkdirSync(join(project, 'tarballs'));
  const tarballs = Object.fromEntries(
    packageDirs.map((dir) => {
      const packed = JSON.parse(
        execFileSync('pnpm', ['pack', '--json', '--pack-destination', join(project, 'tarballs')], {
          cwd: dir,
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'pipe'],
        }),
      );
      return [readManifest(dir).name, `file:${packed.filename}`];
    }),
  );
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'packed-check', private: true, type: 'module', dependencies: tarballs }),
  );
  writeFileSync(
    join(project, 'pnpm-workspace.yaml'),
    // strictDepBuilds: false leaves dependencies' install scripts unrun, as the workspace declines them.
    `strictDepBuilds: false\noverrides:\n${Object.entries(tarballs)
      .map(([name, spec]) => `  ${JSON.stringify(name)}: ${JSON.stringify(spec)}`)
      .join('\n')}\n`,
  );
  execFileSync('pnpm', ['install', '--prefer-offline', '--reporter=silent'], {
    cwd: project,
    stdio: 'inherit',
  });
  copyFileSync(resolve('scripts/packaging/smoke.mjs'), join(project, 'smoke.mjs'));
  const parquet = resolve('packages/eval/data/benchmarks/aime24/deepscaler_aime.parquet');
  for (const binary of oldestBinaries) {
    const smoke = spawnSync(binary, [join(project, 'smoke.mjs'), parquet], { encoding: 'utf8' });
    process.stdout.write(smoke.stdout + smoke.stderr);
    if (smoke.status !== 0) failures.push(`the packed tarballs on ${binary}`);
  }
} finally {
  rmSync(project, { recursive: true, force: true });
}

for (const node of [process.execPath, ...oldestBinaries]) {
  const cli = spawnSync(node, ['apps/trainer/dist/cli.js', 'no-such-command'], { encoding: 'utf8' });
  const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
  check(
    cli.status === 2 && cli.stderr.includes('Usage: taorl'),
    `taorl: unknown command prints usage, exits 2 (Node ${version})`,
  );
}

if (failures.length > 0) {
  console.error(`\n${failures.length} packaging check(s) failed`);
  process.exit(1);
}
console.log(`\nall packaging checks passed for ${packageDirs.length} packages`);
