import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));

/**
 * References to places outside a clone: the shared folder beside the repository on the machine it was built on,
 * and absolute paths of that machine. A user's clone has neither. (Written as regular expressions so this file
 * does not match itself.)
 */
const outsidePaths: readonly RegExp[] = [/(?:\.\.\/)+shared\b/, /(?:^|[^\w.-])\/work\//];

interface Hit {
  readonly file: string;
  readonly line: number;
  readonly text: string;
}

function outsideReferences(file: string, content: string): Hit[] {
  return content
    .split('\n')
    .flatMap((text, index) =>
      outsidePaths.some((pattern) => pattern.test(text))
        ? [{ file, line: index + 1, text: text.trim() }]
        : [],
    );
}

describe('the repository is self-contained', () => {
  it('the check finds a reference to the shared folder and to a machine path', () => {
    // Assembled from pieces so that this file itself holds no such path.
    const shared = ['..', 'shared', 'data', 'benchmarks'].join('/');
    const machine = ['', 'work', 'main'].join('/');
    const sample = `see ${shared}\nok: data/benchmarks\nRun: cd ${machine} && pnpm bench\n`;
    expect(outsideReferences('sample.md', sample).map((hit) => hit.line)).toEqual([1, 3]);
  });

  it('no tracked file refers to a path outside the repository', () => {
    const files = execFileSync('git', ['ls-files', '-z'], { cwd: repoRoot, encoding: 'utf8' })
      .split('\0')
      .filter((file) => file !== '');
    expect(files.length).toBeGreaterThan(100);
    const hits = files.flatMap((file) => {
      const bytes = readFileSync(`${repoRoot}${file}`);
      // Binary files (parquet, images) hold no paths a reader follows.
      return bytes.includes(0) ? [] : outsideReferences(file, bytes.toString('utf8'));
    });
    expect(hits.map((hit) => `${hit.file}:${hit.line}: ${hit.text}`)).toEqual([]);
  });
});
