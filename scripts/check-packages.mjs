// Packaging checks on the built workspace: every publishable package passes publint (strict, packed with pnpm so
// publishConfig applies) and are-the-types-wrong, and its ESM and CJS builds load in Node with the same exports.
// pnpm pack shows each tarball holds only what users need. Then every package is released to a throwaway local
// registry as docs/CONTRIBUTING.md releases (the plan, then changeset publish; with --as-workflow, the release
// workflow's publish command), installed from it into a project
// outside the workspace and exercised by the oldest Node the `engines` fields allow (scripts/packaging/). The
// trainer's built CLI answers an unknown command with usage and exit code 2, on this Node and on the oldest.
// Beyond those tools (scripts/packaging/tarball-rules.mjs): no build in a tarball that no export or bin names, a
// portable main entry bundles for the browser, README links work on the npm page and its example runs as plain
// JavaScript (an ES module and CommonJS) against the installed packages, each tarball's LICENSE is the licence
// text, no published manifest names a private package, a bundle keeps the builds that register plug-ins, and
// @taorl/eval/node bundled into an application still grades on its worker threads.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
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
import { build } from 'esbuild';
import { startLocalRegistry } from './packaging/local-registry.mjs';
import { installNode, oldestNodeVersion } from './packaging/oldest-node.mjs';
import {
  browserBundleProblem,
  builtFiles,
  codeSubpaths,
  commonJsExample,
  isDeclarationChunk,
  isFullApacheLicense,
  PORTABLE_MAIN,
  REPOSITORY,
  readmeExample,
  readmeLinkProblems,
} from './packaging/tarball-rules.mjs';
import { releaseWorkflowSteps } from './packaging/workflow-steps.mjs';

const asWorkflow = process.argv.includes('--as-workflow');
const failures = [];
const check = (ok, label) => {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${label}`);
  if (!ok) failures.push(label);
};

// Private workspace packages (the internal @taorl/plugin-registry) are bundled into the others, never published.
const packageDirs = readdirSync('packages')
  .map((name) => resolve('packages', name))
  .filter((dir) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).private !== true);

/**
 * The data files a package ships: each benchmark's test.jsonl and READMEs under data/benchmarks (only
 * @taorl/eval has that folder; the verl parquet copies stay in the repository, docs/explanation/grading.md), and the
 * Python programs under python/ that the code reads at run time (only @taorl/sandbox; not their tests), and the
 * pyodide backend's process script, pyodide/worker.mjs (only @taorl/sandbox).
 */
function shippedData(dir) {
  const runtimeFiles = existsSync(join(dir, 'python'))
    ? readdirSync(join(dir, 'python'))
        .filter((name) => name.endsWith('.py'))
        .map((name) => `python/${name}`)
    : [];
  // The pyodide backend's interpreter process (only @taorl/sandbox): plain JavaScript started as a child process.
  if (existsSync(join(dir, 'pyodide', 'worker.mjs'))) runtimeFiles.push('pyodide/worker.mjs');
  const root = join(dir, 'data', 'benchmarks');
  if (!existsSync(root)) return runtimeFiles;
  const files = [...runtimeFiles, 'data/benchmarks/README.md'];
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
  const required = ['LICENSE', 'README.md', 'package.json', ...builtFiles(manifest), ...shippedData(dir)];
  const unexpected = shipped.filter(
    (path) => !required.includes(path) && path !== 'CHANGELOG.md' && !isDeclarationChunk(path),
  );
  const missing = required.filter((path) => !shipped.includes(path));
  check(
    missing.length === 0 && unexpected.length === 0,
    `${name}: the tarball holds the builds its exports and bin name, README.md, LICENSE, package.json and the data it ships only (${shipped.length} files)` +
      [
        ...missing.map((path) => `; missing ${path}`),
        ...unexpected.map((path) => `; unexpected ${path}`),
      ].join(''),
  );

  for (const subpath of codeSubpaths(manifest)) {
    const entry = manifest.publishConfig.exports[subpath];
    const esm = await import(pathToFileURL(join(dir, entry.import.default)).href);
    const cjs = createRequire(import.meta.url)(join(dir, entry.require.default));
    const esmNames = Object.keys(esm).sort().join(',');
    const cjsNames = Object.keys(cjs)
      .filter((key) => key !== '__esModule')
      .sort()
      .join(',');
    check(
      esmNames.length > 0 && esmNames === cjsNames,
      `${name}${subpath.slice(1)}: ESM and CJS builds export the same names`,
    );
  }

  if (PORTABLE_MAIN.has(name)) {
    const problem = await browserBundleProblem(join(dir, manifest.publishConfig.exports['.'].import.default));
    check(problem === null, `${name}: the main entry bundles for the browser (no Node built-in)`);
    if (problem !== null) console.log(problem);
  }
  const browserEntry = manifest.publishConfig.exports['./browser'];
  if (browserEntry !== undefined) {
    const problem = await browserBundleProblem(join(dir, browserEntry.import.default));
    check(
      problem === null,
      `${name}/browser: the browser's entry bundles for the browser (no Node built-in)`,
    );
    if (problem !== null) console.log(problem);
  }

  const repository = manifest.repository ?? {};
  check(
    repository.type === REPOSITORY.type &&
      repository.url === REPOSITORY.url &&
      repository.directory === `packages/${dir.split('/').at(-1)}`,
    `${name}: repository is ${REPOSITORY.url}, directory packages/<folder>`,
  );
  const readme = readFileSync(join(dir, 'README.md'), 'utf8');
  const linkProblems = readmeLinkProblems(readme, resolve('.'));
  check(
    linkProblems.length === 0,
    `${name}: README links are absolute and their files exist${linkProblems.map((problem) => `; ${problem}`).join('')}`,
  );
  check(readmeExample(readme) !== null, `${name}: README has a JavaScript example`);
}

const readManifest = (dir) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
const oldestVersions = [
  ...new Set(['.', 'apps/trainer', ...packageDirs].map((dir) => oldestNodeVersion(readManifest(dir)))),
];
const oldestBinaries = oldestVersions.map((version) =>
  installNode(version, resolve('node_modules', '.cache', 'oldest-node')),
);

// The release of docs/CONTRIBUTING.md through a throwaway local registry: the plan must name that registry,
// `changeset publish` (no git tags) publishes every package to it, and a project outside the workspace installs
// them from it as a user would: the @taorl scope from the local registry, third-party dependencies from the usual
// one (pnpm's store first).
const registryFolder = mkdtempSync(join(tmpdir(), 'taorl-registry-'));
const registry = await startLocalRegistry(registryFolder);
const project = mkdtempSync(join(tmpdir(), 'taorl-installed-'));
try {
  const plan = spawnSync('node', ['scripts/release-plan.mjs'], {
    encoding: 'utf8',
    env: registry.releaseEnv,
  });
  check(
    plan.status === 0 &&
      plan.stdout.includes(
        `${packageDirs.length} of ${packageDirs.length} packages would be published to ${registry.url}`,
      ),
    `the release plan names the local registry and lists every package's files`,
  );
  if (plan.status !== 0) console.log(plan.stdout + plan.stderr);
  // `--as-workflow` (the release dry run, scripts/release-dry-run.mjs, in a scratch clone): publish with the release
  // workflow's own publish command, which builds, runs the plan and tags the commit as a release does.
  const [command, ...args] = asWorkflow
    ? releaseWorkflowSteps('.github/workflows/release.yml').publish
    : ['pnpm', 'exec', 'changeset', 'publish', '--no-git-tag'];
  const publish = spawnSync(command, args, { encoding: 'utf8', env: registry.releaseEnv });
  check(publish.status === 0, `${[command, ...args].join(' ')} publishes to the local registry`);
  if (publish.status !== 0) console.log(publish.stdout + publish.stderr);

  const published = Object.fromEntries(
    packageDirs.map((dir) => [readManifest(dir).name, readManifest(dir).version]),
  );
  // A user installs the peer dependencies beside a package (the READMEs' install lines), so its example finds them.
  const peers = Object.assign({}, ...packageDirs.map((dir) => readManifest(dir).peerDependencies ?? {}));
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({
      name: 'installed-check',
      private: true,
      type: 'module',
      dependencies: { ...peers, ...published },
    }),
  );
  writeFileSync(join(project, '.npmrc'), `@taorl:registry=${registry.url}\n`);
  // strictDepBuilds: false leaves dependencies' install scripts unrun, as the workspace declines them.
  writeFileSync(join(project, 'pnpm-workspace.yaml'), 'strictDepBuilds: false\n');
  execFileSync('pnpm', ['install', '--prefer-offline', '--reporter=silent'], {
    cwd: project,
    stdio: 'inherit',
  });
  const privateNames = new Set(
    readdirSync('packages')
      .map((name) => readManifest(resolve('packages', name)))
      .filter((manifest) => manifest.private === true)
      .map((manifest) => manifest.name),
  );
  for (const name of Object.keys(published)) {
    const installed = JSON.parse(readFileSync(join(project, 'node_modules', name, 'package.json'), 'utf8'));
    const named = ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies'].flatMap(
      (field) => Object.keys(installed[field] ?? {}).filter((dependency) => privateNames.has(dependency)),
    );
    check(
      named.length === 0,
      `${name}: the published manifest names no private workspace package ${named.join(', ')}`,
    );
    // Workspace ranges (`workspace:^`) are published as `^<the version published>`, so a user gets the fixes of
    // the sibling packages, never their next minor (a breaking change in 0.x); the engines field goes along.
    const ranges = Object.entries(installed.dependencies ?? {}).filter(
      ([dependency]) => dependency in published,
    );
    const wrongRanges = ranges.filter(([dependency, range]) => range !== `^${published[dependency]}`);
    check(
      wrongRanges.length === 0,
      `${name}@${installed.version}: its dependencies on the other packages are ^<published version> (${ranges.map(([dependency, range]) => `${dependency} ${range}`).join(', ') || 'none'})`,
    );
    const engines = readManifest(packageDirs.find((dir) => readManifest(dir).name === name)).engines;
    check(
      installed.engines?.node === engines.node,
      `${name}: the published manifest's engines.node is ${engines.node} (${installed.engines?.node})`,
    );
    // A cut version (`pnpm version-packages`) ships its CHANGELOG.md, the newest entry first (0.0.0 has none).
    if (installed.version !== '0.0.0') {
      const changelog = join(project, 'node_modules', name, 'CHANGELOG.md');
      const newest = existsSync(changelog) ? /^## (\S+)$/m.exec(readFileSync(changelog, 'utf8'))?.[1] : null;
      check(
        newest === installed.version,
        `${name}@${installed.version}: the tarball's CHANGELOG.md opens with that version (${newest ?? 'no CHANGELOG.md'})`,
      );
    }
    const license = readFileSync(join(project, 'node_modules', name, 'LICENSE'), 'utf8');
    check(
      isFullApacheLicense(license),
      `${name}: the tarball's LICENSE is the Apache License 2.0 text (${license.length} characters)`,
    );
  }
  await checkBundledRegistrations(project, packageDirs.map(readManifest));
  copyFileSync(resolve('scripts/packaging/smoke.mjs'), join(project, 'smoke.mjs'));
  const parquet = resolve('packages/eval/data/benchmarks/aime24/deepscaler_aime.parquet');
  for (const binary of oldestBinaries) {
    const smoke = spawnSync(binary, [join(project, 'smoke.mjs'), parquet], { encoding: 'utf8' });
    process.stdout.write(smoke.stdout + smoke.stderr);
    if (smoke.status !== 0) failures.push(`the installed packages on ${binary}`);
  }

  // Each README's example, as a user would paste it into an ES module and as a CommonJS user would write it,
  // against the installed packages. @taorl/rollout's rolls out against a vLLM-compatible server: the built
  // trainer's `taorl serve` on the shipped base model, whose URL the example reads from TAORL_SERVER.
  const server = await startTaorlServe();
  try {
    for (const dir of packageDirs) {
      const name = readManifest(dir).name;
      const example = readmeExample(readFileSync(join(dir, 'README.md'), 'utf8'));
      if (example === null) continue;
      const esm = join(project, `example-${name.split('/')[1]}.mjs`);
      const cjs = join(project, `example-${name.split('/')[1]}.cjs`);
      writeFileSync(esm, example);
      writeFileSync(cjs, commonJsExample(example));
      for (const [file, kind] of [
        [esm, 'an ES module'],
        [cjs, 'CommonJS'],
      ]) {
        for (const binary of oldestBinaries) {
          const run = spawnSync(binary, [file], {
            cwd: project,
            encoding: 'utf8',
            timeout: 300_000,
            env: { ...process.env, TAORL_SERVER: server.url },
          });
          check(run.status === 0, `${name}: the README example runs as ${kind} (${binary})`);
          if (run.status !== 0) console.log(run.stdout + run.stderr);
        }
      }
    }
  } finally {
    server.process.kill('SIGTERM');
  }

  // An application that bundles @taorl/eval/node into one file, run from a folder with nothing beside it.
  const application = join(project, 'pool-application.mjs');
  writeFileSync(
    application,
    // String.raw: the application's source holds the backslashes of its LaTeX strings escaped.
    String.raw`import { createGraderPool } from '@taorl/eval/node';
const pool = createGraderPool({ size: 2 });
const tasks = [{ response: '\\boxed{\\frac{1}{2}}', gold: '0.5' }, { response: '\\boxed{3}', gold: '4' }];
const results = await pool.gradeMany(tasks);
await pool.close();
console.log(JSON.stringify(results.map((result) => result.correct)));
`,
  );
  const bundled = mkdtempSync(join(tmpdir(), 'taorl-bundled-'));
  try {
    await build({
      entryPoints: [application],
      bundle: true,
      platform: 'node',
      format: 'esm',
      outfile: join(bundled, 'app.mjs'),
      logLevel: 'silent',
    });
    const run = spawnSync(process.execPath, [join(bundled, 'app.mjs')], { cwd: bundled, encoding: 'utf8' });
    const graded = run.status === 0 && run.stdout.trim() === '[true,false]';
    check(graded, '@taorl/eval/node bundled into an application grades on its worker threads');
    if (!graded) console.log(run.stdout + run.stderr);
  } finally {
    rmSync(bundled, { recursive: true, force: true });
  }
} finally {
  registry.close();
  rmSync(project, { recursive: true, force: true });
  rmSync(registryFolder, { recursive: true, force: true });
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

/** `taorl serve --model apps/trainer/base --port 0` from the built CLI, once it prints the URL it listens on. */
function startTaorlServe() {
  const child = spawn(
    process.execPath,
    ['apps/trainer/dist/cli.js', 'serve', '--model', 'apps/trainer/base', '--port', '0'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  return new Promise((resolveServer, reject) => {
    const collect = (chunk) => {
      output += chunk.toString();
      const match = /taorl serve: listening on (http:\/\/\S+)/.exec(output);
      if (match) resolveServer({ url: match[1], process: child });
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.once('exit', (code) => reject(new Error(`taorl serve exited with ${code}: ${output}`)));
  });
}

/**
 * An application that imports every entry of every package for its side effects alone (`import '@taorl/filter'`)
 * has the same plug-ins registered whether Node runs it or esbuild bundles it first: `sideEffects` keeps the
 * builds that register. The registries live on globalThis under Symbol.for('taorl.<package>.<kind>')
 * (packages/plugin-registry), which the application prints.
 */
async function checkBundledRegistrations(project, manifests) {
  const imports = manifests.flatMap((manifest) =>
    codeSubpaths(manifest).map((subpath) => `import '${manifest.name}${subpath.slice(1)}';`),
  );
  const application = join(project, 'registrations.mjs');
  writeFileSync(
    application,
    `${imports.join('\n')}
const registries = Object.getOwnPropertySymbols(globalThis)
  .filter((key) => key.description.startsWith('taorl.'))
  .map((key) => \`\${key.description}: \${[...globalThis[key].entries.keys()].join(' ')}\`);
console.log(registries.sort().join('\\n'));
`,
  );
  await build({
    entryPoints: [application],
    bundle: true,
    platform: 'node',
    format: 'esm',
    external: ['@tensorflow/*'],
    outfile: join(project, 'registrations.bundled.mjs'),
    logLevel: 'silent',
  });
  const [byNode, bundled] = [application, join(project, 'registrations.bundled.mjs')].map((file) =>
    spawnSync(process.execPath, [file], { cwd: project, encoding: 'utf8' }).stdout.trim(),
  );
  check(
    byNode.split('\n').length >= 4 && bundled === byNode,
    `a bundle of bare imports of every entry registers what Node registers (${byNode.split('\n').length} registries)`,
  );
  if (bundled !== byNode) console.log(`Node:\n${byNode}\nbundled:\n${bundled}`);
}
