// The recorded public API of each published package (docs/CONTRIBUTING.md, "The public API"): API Extractor's
// report of every entry (`.` and `./node`) from the built declarations, committed as
// packages/<name>/api-report/<name>[-node].api.md.
//
//   node scripts/api-report.mjs           check: fails when a report differs from the build (run with --update),
//                                         or when a package's API changed since its last version without a pending
//                                         changeset of the matching level
//   node scripts/api-report.mjs --update  write the reports from the build
//   ... --package filter                  only that package (repeatable)
//   ... --root DIR                        the repository to check (default: this one; test/api-report-level.test.ts)
//
// The level rule for 0.x (docs/CONTRIBUTING.md): an API that only gained lines needs a changeset of any level for
// that package; one that lost or changed a line needs minor (or major).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Extractor, ExtractorConfig } from '@microsoft/api-extractor';

const update = process.argv.includes('--update');
const valuesOf = (flag) => process.argv.flatMap((arg, i) => (process.argv[i - 1] === flag ? [arg] : []));
const only = valuesOf('--package');
const root = resolve(valuesOf('--root')[0] ?? join(import.meta.dirname, '..'));
const failures = [];

const publicPackages = readdirSync(join(root, 'packages'))
  .map((name) => ({ name, dir: join(root, 'packages', name) }))
  .filter(({ dir }) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).private !== true)
  .filter(({ name }) => only.length === 0 || only.includes(name));

/** The package's entries with declarations: `.` as index, `./node` as node, `./browser` as browser. */
function entries(dir) {
  const { exports } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  return Object.keys(exports)
    .filter((subpath) => subpath !== './package.json')
    .map((subpath) => (subpath === '.' ? 'index' : subpath.slice(2)));
}

const reportName = (name, entry) => (entry === 'index' ? name : `${name}-${entry}`);

/** Runs API Extractor on one entry; true when the committed report equals the build's. */
function extract(name, dir, entry, scratch) {
  const declarations = join(dir, 'dist', `${entry}.d.ts`);
  if (!existsSync(declarations)) throw new Error(`${declarations} is missing: run pnpm build first`);
  if (update) mkdirSync(join(dir, 'api-report'), { recursive: true });
  const config = ExtractorConfig.prepare({
    configObject: {
      projectFolder: dir,
      mainEntryPointFilePath: declarations,
      compiler: { overrideTsconfig: { compilerOptions: { lib: ['es2022', 'dom'], types: ['node'] } } },
      apiReport: {
        enabled: true,
        reportFolder: join(dir, 'api-report'),
        reportTempFolder: scratch,
        reportFileName: reportName(name, entry),
      },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      messages: {
        // The report lists what the declarations say; TSDoc style and release tags are not checked here.
        extractorMessageReporting: {
          default: { logLevel: 'none' },
          'ae-missing-release-tag': { logLevel: 'none' },
          'ae-forgotten-export': { logLevel: 'none', addToApiReportFile: true },
        },
        tsdocMessageReporting: { default: { logLevel: 'none' } },
        // The builds are type-checked already; the DOM and WebGPU declarations tfjs brings disagree in places.
        compilerMessageReporting: { default: { logLevel: 'none' } },
      },
    },
    packageJsonFullPath: join(dir, 'package.json'),
  });
  const result = Extractor.invoke(config, {
    localBuild: update,
    messageCallback: (message) => {
      if (message.logLevel === 'error') console.error(`${name} ${entry}: ${message.text}`);
    },
  });
  if (result.errorCount > 0) throw new Error(`API Extractor failed on @taorl/${name} ${entry}`);
  return !result.apiReportChanged;
}

/** The commit that gave the package its current version (its last release), or null before any. */
function releaseCommit(dir) {
  const { version } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  if (version === '0.0.0') return null;
  const log = execFileSync(
    'git',
    ['log', '-1', '--format=%H', `-S"version": "${version}"`, '--', join(dir, 'package.json')],
    { cwd: root, encoding: 'utf8' },
  ).trim();
  return log === '' ? null : log;
}

/** The report at a commit, or null when it did not exist there. */
function reportAt(commit, path) {
  try {
    return execFileSync('git', ['show', `${commit}:${path}`], { cwd: root, encoding: 'utf8', stdio: 'pipe' });
  } catch {
    return null;
  }
}

/** The bump each pending changeset gives each package (the highest one). */
function pendingBumps() {
  const order = { patch: 1, minor: 2, major: 3 };
  const bumps = new Map();
  const folder = join(root, '.changeset');
  for (const file of readdirSync(folder).filter((f) => f.endsWith('.md') && f !== 'README.md')) {
    const front = readFileSync(join(folder, file), 'utf8').split('---')[1] ?? '';
    for (const match of front.matchAll(/^\s*["']([^"']+)["']:\s*(patch|minor|major)\s*$/gm)) {
      if ((order[match[2]] ?? 0) > (order[bumps.get(match[1])] ?? 0)) bumps.set(match[1], match[2]);
    }
  }
  return bumps;
}

const scratch = mkdtempSync(join(tmpdir(), 'taorl-api-report-'));
try {
  const bumps = pendingBumps();
  for (const { name, dir } of publicPackages) {
    const release = releaseCommit(dir);
    let removed = false;
    let added = false;
    for (const entry of entries(dir)) {
      const path = `packages/${name}/api-report/${reportName(name, entry)}.api.md`;
      const same = extract(name, dir, entry, scratch);
      if (!same && !update)
        failures.push(`${path} differs from the build's API: run pnpm api:update and commit it`);
      if (release === null) continue;
      const before = reportAt(release, path);
      const now = readFileSync(join(root, path), 'utf8');
      if (before === null || before === now) continue;
      const nowLines = new Set(now.split('\n'));
      if (before.split('\n').some((line) => !nowLines.has(line))) removed = true;
      else added = true;
    }
    const bump = bumps.get(`@taorl/${name}`);
    if (removed && bump !== 'minor' && bump !== 'major')
      failures.push(`@taorl/${name}: its API lost or changed lines since its release; add a minor changeset`);
    else if (added && bump === undefined)
      failures.push(`@taorl/${name}: its API gained lines since its release; add a changeset for it`);
    console.log(`${update ? 'wrote' : 'checked'} the API report of @taorl/${name}`);
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
for (const failure of failures) console.error(`FAIL ${failure}`);
process.exit(failures.length === 0 ? 0 : 1);
