// The commands .github/workflows/release.yml gives changesets' action: `version` (the "Version packages" pull
// request) and `publish` (once it is merged). The release dry run (scripts/release-dry-run.mjs) runs these, read
// from the workflow file, so it rehearses what the workflow runs and cannot drift from it.
import { readFileSync } from 'node:fs';

/** `{ version, publish }`, each as [command, ...arguments]; throws naming the file when one is missing. */
export function releaseWorkflowSteps(file) {
  const text = readFileSync(file, 'utf8');
  const step = (key) => {
    const match = new RegExp(`^\\s+${key}:\\s*(\\S.*)$`, 'm').exec(
      text.slice(text.indexOf('uses: changesets/action@')),
    );
    if (!match) throw new Error(`${file}: the changesets/action step has no \`${key}:\` command`);
    return match[1].trim().split(/\s+/);
  };
  if (!text.includes('uses: changesets/action@')) throw new Error(`${file}: no step uses changesets/action`);
  return { version: step('version'), publish: step('publish') };
}
