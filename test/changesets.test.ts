import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// changesets copies a changeset's whole text into the changelog of every package its front matter names, so a
// changeset that names several packages must say only what is true of each of them: a note about one package
// (which names it) belongs in that package's own changeset (docs/CONTRIBUTING.md, Changesets).

const folder = fileURLToPath(new URL('../.changeset', import.meta.url));
const changesets = readdirSync(folder).filter((name) => name.endsWith('.md') && name !== 'README.md');

/** The packages a changeset's front matter names, and its text. */
function parse(name: string, source: string): { packages: string[]; text: string } {
  const match = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(source);
  if (!match) throw new Error(`.changeset/${name}: no front matter`);
  const packages = [...match[1]!.matchAll(/^["']([^"']+)["']:\s*(?:major|minor|patch)\s*$/gm)].map(
    ([, pkg]) => pkg!,
  );
  return { packages, text: match[2]! };
}

/** The packages of a changeset that names several and one of them in its text (none: the changeset is fine). */
function misplacedNotes(name: string, source: string): string[] {
  const { packages, text } = parse(name, source);
  if (packages.length === 0) throw new Error(`.changeset/${name}: names no package`);
  return packages.length > 1 ? packages.filter((pkg) => text.includes(pkg)) : [];
}

describe('changesets', () => {
  it('the rule finds a note about one package in a changeset that names several, and reads single quotes', () => {
    const shared = '---\n\'@taorl/filter\': minor\n"@taorl/grpo": minor\n---\n\nBoth take a schema.\n';
    expect(misplacedNotes('shared.md', shared)).toEqual([]);
    const misplaced = shared.replace('Both take a schema.', '@taorl/grpo also checks its options.');
    expect(misplacedNotes('misplaced.md', misplaced)).toEqual(['@taorl/grpo']);
    expect(() => misplacedNotes('empty.md', '---\n\n---\n\ntext\n')).toThrow('names no package');
  });

  // After a version cut no changeset is pending, and there is nothing more to check.
  if (changesets.length > 0)
    it.each(changesets)('%s: names packages, and when several, none of them in its text', (name) => {
      const named = misplacedNotes(name, readFileSync(join(folder, name), 'utf8'));
      expect(named, `.changeset/${name} names several packages: write one changeset per package`).toEqual([]);
    });
});
