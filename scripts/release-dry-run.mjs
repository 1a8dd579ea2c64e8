// `pnpm release:dry-run` (docs/CONTRIBUTING.md, Release): .github/workflows/release.yml rehearsed end to end on
// this machine, through a throwaway local registry instead of npm, in a scratch clone of HEAD (uncommitted changes
// are not in it; the checkout here is left as it is):
//
//   0. the workflow's install step in the checkout;
//   1. the workflow's version command (`pnpm version-packages`: changesets applied, CHANGELOG.md written), committed
//      as "Version packages", as changesets' action commits it;
//   2. what .ci/run checks on that commit before the publish step: the build and `pnpm api:check`;
//   3. the packaging check with the workflow's publish command (`pnpm release`: build, plan, `changeset publish`)
//      against a local verdaccio: every package installed from it into a fresh project, its ranges and engines
//      read back, each README example run as an ES module and as CommonJS on the oldest Node `engines` allows;
//   4. the release tags `changeset publish` made, one per public package.
//
//   node scripts/release-dry-run.mjs [--keep]   --keep leaves the clone (its CHANGELOG.md files) to read
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { releaseWorkflowSteps } from './packaging/workflow-steps.mjs';

const root = resolve(import.meta.dirname, '..');
const keep = process.argv.includes('--keep');
const scratch = mkdtempSync(join(tmpdir(), 'taorl-release-dry-run-'));
// mktemp makes the folder 0700; the sandbox's unprivileged runs read the clone's code as uid 65534 (as .ci/run).
chmodSync(scratch, 0o755);
const clone = join(scratch, 'taorl');

const step = (title) => console.log(`\n[release dry run] ${title}`);
const run = (command, args, options = {}) =>
  execFileSync(command, args, { cwd: clone, stdio: 'inherit', ...options });
const read = (command, args) => execFileSync(command, args, { cwd: clone, encoding: 'utf8' });

try {
  const commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
  step(`a scratch clone of ${commit} at ${clone}`);
  run('git', ['clone', '--quiet', '--no-checkout', root, clone], { cwd: scratch });
  run('git', ['checkout', '--quiet', '-B', 'main', commit]);

  const workflow = releaseWorkflowSteps(join(clone, '.github/workflows/release.yml'));
  step(`the workflow's install step: ${workflow.install.join(' ')} (from pnpm's store first)`);
  run(workflow.install[0], [...workflow.install.slice(1), '--prefer-offline', '--reporter=silent']);
  const pending = readdirSync(join(clone, '.changeset')).filter(
    (name) => name.endsWith('.md') && name !== 'README.md',
  );
  if (pending.length === 0) {
    // changesets' action publishes directly when nothing is pending (the versions were cut by an earlier commit).
    step('no pending changeset: the versions as committed are published, as the action does');
  } else {
    step(
      `the workflow's version command: ${workflow.version.join(' ')} (${pending.length} pending changesets)`,
    );
    run(workflow.version[0], workflow.version.slice(1));
    run('git', ['add', '-A']);
    const identity = ['-c', 'user.name=release dry run', '-c', 'user.email=release-dry-run@localhost'];
    run('git', [...identity, 'commit', '--quiet', '-m', 'Version packages']);
    console.log(read('git', ['show', '--stat', '--format=%s', 'HEAD']));
  }

  step('the checks of .ci/run that read the build: pnpm build, pnpm api:check');
  run('pnpm', ['--silent', 'build', '--output-logs=errors-only']);
  run('pnpm', ['--silent', 'api:check']);

  step(`the workflow's publish command (${workflow.publish.join(' ')}) through a local registry`);
  run(process.execPath, ['scripts/check-packages.mjs', '--as-workflow']);

  step('the release tags');
  const tags = new Set(read('git', ['tag', '--list', '@taorl/*']).split('\n').filter(Boolean));
  const expected = readdirSync(join(clone, 'packages'))
    .map((name) => JSON.parse(readFileSync(join(clone, 'packages', name, 'package.json'), 'utf8')))
    .filter((manifest) => manifest.private !== true)
    .map((manifest) => `${manifest.name}@${manifest.version}`);
  const untagged = expected.filter((tag) => !tags.has(tag));
  for (const tag of expected) console.log(`${tags.has(tag) ? 'ok  ' : 'FAIL'} tagged ${tag}`);
  if (untagged.length > 0) throw new Error(`changeset publish did not tag ${untagged.join(', ')}`);
  console.log(`\nthe release dry run passed: ${expected.join(', ')}`);
} catch (error) {
  console.error(`\nthe release dry run failed: ${error.message}`);
  process.exitCode = 1;
} finally {
  if (keep) console.log(`the clone is kept at ${clone}`);
  else rmSync(scratch, { recursive: true, force: true });
}
