import { spawnSync } from 'node:child_process';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Issue 52: the recorded public API. `pnpm api:check` (scripts/api-report.mjs, run by .ci/run) fails when a
// package's API differs from its committed report, naming the report and the command that rewrites it.

const root = fileURLToPath(new URL('..', import.meta.url));
const check = () =>
  spawnSync(process.execPath, [join(root, 'scripts/api-report.mjs'), '--package', 'filter'], {
    cwd: root,
    encoding: 'utf8',
  });

describe('the recorded public API', () => {
  it('passes on the committed reports and fails on a report the build does not match', () => {
    const committedCheck = check();
    expect(committedCheck.status, committedCheck.stderr).toBe(0);
    const report = join(root, 'packages/filter/api-report/filter.api.md');
    const committed = readFileSync(report, 'utf8');
    try {
      appendFileSync(report, '\nexport function removedLater(): void;\n');
      const changed = check();
      expect(changed.status).toBe(1);
      expect(changed.stderr).toContain(
        "FAIL packages/filter/api-report/filter.api.md differs from the build's API: run pnpm api:update and commit it",
      );
    } finally {
      writeFileSync(report, committed);
    }
  }, 300_000);
});
