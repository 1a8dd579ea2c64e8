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
function parse(name: string): { packages: string[]; text: string } {
  const match = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(readFileSync(join(folder, name), 'utf8'));
  if (!match) throw new Error(`.changeset/${name}: no front matter`);
  const packages = [...match[1]!.matchAll(/^["']([^"']+)["']:\s*(?:major|minor|patch)\s*$/gm)].map(
    ([, pkg]) => pkg!,
  );
  return { packages, text: match[2]! };
}

describe('changesets', () => {
  it.each(changesets)('%s: names packages, and when several, none of them in its text', (name) => {
    const { packages, text } = parse(name);
    expect(packages.length).toBeGreaterThan(0);
    if (packages.length > 1) {
      const named = packages.filter((pkg) => text.includes(pkg));
      expect(
        named,
        `.changeset/${name} names ${packages.join(', ')}: write one changeset per package`,
      ).toEqual([]);
    }
  });
});
