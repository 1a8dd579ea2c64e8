import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Issue 52: after a version is cut, `pnpm api:check` (scripts/api-report.mjs) fails when a package's public API
// changed since that version without a pending changeset of the matching level (docs/CONTRIBUTING.md, "Versions in
// 0.x"): a changed signature needs a minor one, an addition any. A scratch repository with one package is cut to
// 0.1.0 by `changeset version`, committed as "Version packages", as the release does; then its API changes.

const root = fileURLToPath(new URL('..', import.meta.url));
const changesetsBin = join(
  dirname(createRequire(import.meta.url).resolve('@changesets/cli/package.json')),
  'bin.js',
);
const gitIdentity = {
  GIT_AUTHOR_NAME: 'test',
  GIT_AUTHOR_EMAIL: 'test@localhost',
  GIT_COMMITTER_NAME: 'test',
  GIT_COMMITTER_EMAIL: 'test@localhost',
};

let repo: string;
const write = (path: string, text: string) => {
  mkdirSync(dirname(join(repo, path)), { recursive: true });
  writeFileSync(join(repo, path), text);
};
const git = (...args: string[]) =>
  execFileSync('git', args, { cwd: repo, encoding: 'utf8', env: { ...process.env, ...gitIdentity } });
const apiReport = (...args: string[]) =>
  spawnSync(process.execPath, [join(root, 'scripts/api-report.mjs'), '--root', repo, ...args], {
    cwd: repo,
    encoding: 'utf8',
  });
/** A changeset for the package; changesets reads its front matter as YAML, so either quote names it. */
const changeset = (name: string, bump: 'patch' | 'minor', quote: '"' | "'" = '"') =>
  write(`.changeset/${name}.md`, `---\n${quote}@taorl/demo${quote}: ${bump}\n---\n\n${name}\n`);
const declarations = (text: string) => write('packages/demo/dist/index.d.ts', text);
/** `--update` rewrites the report from the declarations (and applies the same level rule, not asserted here). */
const updateReport = () => {
  apiReport('--update');
  const report = readFileSync(join(repo, 'packages/demo/api-report/demo.api.md'), 'utf8');
  const declared = readFileSync(join(repo, 'packages/demo/dist/index.d.ts'), 'utf8');
  for (const line of declared.trim().split('\n'))
    expect(report).toContain(line.replace('export declare function', 'export function'));
};

const FIRST_API = 'export declare function score(answer: string): number;\n';

beforeAll(() => {
  repo = mkdtempSync(join(tmpdir(), 'taorl-api-level-'));
  write('package.json', JSON.stringify({ name: 'scratch', private: true }));
  write('pnpm-workspace.yaml', 'packages:\n  - packages/*\n');
  write(
    '.changeset/config.json',
    JSON.stringify({
      changelog: createRequire(import.meta.url).resolve('@changesets/cli/changelog'),
      commit: false,
      access: 'public',
      baseBranch: 'main',
    }),
  );
  write(
    'packages/demo/package.json',
    JSON.stringify({
      name: '@taorl/demo',
      version: '0.0.0',
      exports: { '.': { types: './dist/index.d.ts', default: './dist/index.js' } },
    }),
  );
  declarations(FIRST_API);
  changeset('first-release', 'minor');
  git('init', '--quiet', '--initial-branch=main');
  const written = apiReport('--update');
  expect(written.status, written.stderr).toBe(0);
  git('add', '-A');
  git('commit', '--quiet', '-m', 'demo with its API report');
  // The cut, as `pnpm version-packages` makes it: 0.0.0 -> 0.1.0, the changesets consumed, then committed.
  execFileSync(process.execPath, [changesetsBin, 'version'], { cwd: repo, stdio: 'pipe' });
  git('add', '-A');
  git('commit', '--quiet', '-m', 'Version packages');
}, 300_000);

afterAll(() => rmSync(repo, { recursive: true, force: true }));

describe('api:check after a cut', () => {
  it('passes on the API of the version just cut', () => {
    expect(JSON.parse(readFileSync(join(repo, 'packages/demo/package.json'), 'utf8')).version).toBe('0.1.0');
    const checked = apiReport();
    expect(checked.status, checked.stderr).toBe(0);
  }, 300_000);

  it('fails on a changed signature with only a patch changeset, and passes with a minor one', () => {
    changeset('scratch-change', 'patch');
    declarations('export declare function score(answer: string, gold: string): number;\n');
    updateReport();
    const withPatch = apiReport();
    expect(withPatch.status).toBe(1);
    expect(withPatch.stderr).toContain(
      'FAIL @taorl/demo: its API lost or changed lines since its release; add a minor changeset',
    );
    changeset('scratch-change', 'minor', "'");
    const withMinor = apiReport();
    expect(withMinor.status, withMinor.stderr).toBe(0);
  }, 300_000);

  it('fails on an addition without a changeset, and passes with a patch one', () => {
    rmSync(join(repo, '.changeset/scratch-change.md'));
    declarations(`${FIRST_API}export declare function explain(answer: string): string;\n`);
    updateReport();
    const without = apiReport();
    expect(without.status).toBe(1);
    expect(without.stderr).toContain(
      'FAIL @taorl/demo: its API gained lines since its release; add a changeset for it',
    );
    changeset('scratch-addition', 'patch');
    const withPatch = apiReport();
    expect(withPatch.status, withPatch.stderr).toBe(0);
  }, 300_000);
});
