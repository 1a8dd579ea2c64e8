// The commands .github/workflows/release.yml gives changesets' action: `version` (the "Version packages" pull
// request) and `publish` (once it is merged). The release dry run (scripts/release-dry-run.mjs) runs these, read
// from the workflow file, so it rehearses what the workflow runs and cannot drift from it.
import { readFileSync } from 'node:fs';

/**
 * `{ install, version, publish }`, each as [command, ...arguments]: the `pnpm install` step that runs before the
 * action (its commands need the checkout's dependencies) and the action's two commands; throws naming the file when
 * one is missing.
 */
export function releaseWorkflowSteps(file) {
  const text = readFileSync(file, 'utf8');
  const beforeAction = text.slice(0, text.indexOf('uses: changesets/action@'));
  const install = /^\s+- run: (pnpm install\b.*)$/m.exec(beforeAction);
  if (!install) throw new Error(`${file}: no \`run: pnpm install\` step before changesets/action`);
  const step = (key) => {
    const match = new RegExp(`^\\s+${key}:\\s*(\\S.*)$`, 'm').exec(
      text.slice(text.indexOf('uses: changesets/action@')),
    );
    if (!match) throw new Error(`${file}: the changesets/action step has no \`${key}:\` command`);
    return match[1].trim().split(/\s+/);
  };
  if (!text.includes('uses: changesets/action@')) throw new Error(`${file}: no step uses changesets/action`);
  return { install: install[1].trim().split(/\s+/), version: step('version'), publish: step('publish') };
}
