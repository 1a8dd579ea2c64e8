import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

// The changelog entries `changeset version` writes (scripts/changelog-format.cjs, named in .changeset/config.json):
// a changeset's text as one list item without a commit hash, and one "Updated dependencies" item per release.

/** What changesets passes the two functions (@changesets/types, not a dependency of the workspace), in part. */
interface Changeset {
  id: string;
  summary: string;
  releases: { name: string; type: string }[];
  commit: string;
}
interface ChangelogFormat {
  getReleaseLine(changeset: Changeset, type: string, options: null): Promise<string>;
  getDependencyReleaseLine(
    changesets: Changeset[],
    updated: { name: string; newVersion: string }[],
    options: null,
  ): Promise<string>;
}

const format: ChangelogFormat = createRequire(import.meta.url)('../scripts/changelog-format.cjs');
const changeset = (summary: string): Changeset => ({
  id: 'grpo-0-1-0-a-release',
  summary,
  releases: [{ name: '@taorl/grpo', type: 'minor' }],
  commit: '328d6830000000000000000000000000000000ab',
});

describe('the changelog format', () => {
  it('writes a changeset as one list item, its later lines indented under it, with no commit hash', async () => {
    const line = await format.getReleaseLine(
      changeset('**First release.** The learner:\n\n- a\n- b'),
      'minor',
      null,
    );
    expect(line).toBe('\n\n- **First release.** The learner:\n\n  - a\n  - b');
  });

  it('names every updated sibling once, however many changesets bumped it', async () => {
    const updated = [
      { name: '@taorl/data', newVersion: '0.1.0' },
      { name: '@taorl/eval', newVersion: '0.1.0' },
    ];
    const line = await format.getDependencyReleaseLine(
      [changeset('one'), changeset('two'), changeset('three')],
      updated,
      null,
    );
    expect(line).toBe('\n\n- Updated dependencies:\n  - @taorl/data@0.1.0\n  - @taorl/eval@0.1.0');
    expect(await format.getDependencyReleaseLine([changeset('one')], [], null)).toBe('');
  });
});
