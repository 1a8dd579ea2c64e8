import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkLinks, documentationFiles, headingAnchor } from './support/markdown-links';

// The docs (docs/ and every README.md) link only to files and headings that exist: relative links, and links into
// this repository's main branch (the package READMEs use those, for the npm page), resolved in this checkout.
// External links are not fetched.

const root = fileURLToPath(new URL('..', import.meta.url));

describe('documentation links', () => {
  it('anchors are made from headings as GitHub makes them', () => {
    expect(headingAnchor('Test tiers')).toBe('test-tiers');
    expect(headingAnchor('`pnpm release`: build, then publish')).toBe('pnpm-release-build-then-publish');
    expect(headingAnchor('C1/C2 (tool-aware) & *more*')).toBe('c1c2-tool-aware--more');
    expect(headingAnchor('max_tool_calls')).toBe('max_tool_calls');
  });

  it('names a missing file and a missing heading, and leaves code and external links alone', () => {
    const dir = mkdtempSync(join(tmpdir(), 'taorl-links-'));
    try {
      mkdirSync(join(dir, 'docs'));
      writeFileSync(join(dir, 'docs', 'b.md'), '# Title\n\n## Step two\n');
      writeFileSync(
        join(dir, 'README.md'),
        [
          '[ok](docs/b.md#step-two) [gone](docs/missing.md) [bad anchor](docs/b.md#step-three)',
          '[web](https://example.com/x) `[code](nowhere.md)`',
          '```md\n[fenced](nowhere.md)\n```',
          '[main](https://github.com/taorl/taorl/blob/main/docs/b.md#title)',
        ].join('\n'),
      );
      const report = checkLinks(dir, documentationFiles(dir));
      expect(report).toEqual({
        checked: 4,
        external: 1,
        problems: [
          'README.md:1: docs/missing.md: no such file docs/missing.md',
          'README.md:1: docs/b.md#step-three: no heading #step-three in docs/b.md',
        ],
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('every relative link and anchor in docs/ and the READMEs resolves', () => {
    const files = documentationFiles(root);
    expect(files).toContain('README.md');
    expect(files).toContain('docs/CONTRIBUTING.md');
    const report = checkLinks(root, files);
    console.log(
      `checked ${report.checked} links in ${files.length} files (${report.external} external, not fetched)`,
    );
    expect(report.checked).toBeGreaterThan(100);
    expect(report.problems).toEqual([]);
  });
});
