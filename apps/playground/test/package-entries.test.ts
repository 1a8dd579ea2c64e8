import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The playground uses the other packages as a user does, through their entries: no import of another package's
// sources by relative path (they would bypass its exports and break when its files move).

const root = fileURLToPath(new URL('..', import.meta.url));
const repository = resolve(root, '../..');
const SOURCES = ['src', 'test', 'scripts', 'bench'];

/** Each relative import of the playground's TypeScript files that lands in another package's src/. */
function importsOfOtherSources(): string[] {
  return SOURCES.flatMap((folder) =>
    readdirSync(join(root, folder), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts'))
      .flatMap((file) => {
        const path = join(root, folder, file);
        const specifiers = [...readFileSync(path, 'utf8').matchAll(/(?:from|import\()\s*'(\.[^']*)'/g)];
        return specifiers
          .map(([, specifier]) => relative(repository, resolve(dirname(path), specifier as string)))
          .filter(
            (target) =>
              /^(apps|packages)\/[^/]+\/src\//.test(target) && !target.startsWith('apps/playground/'),
          )
          .map((target) => `${folder}/${file} imports ${target}`);
      }),
  );
}

describe("the playground's imports", () => {
  it('reach other packages through their entries, never their src/ by path', () => {
    expect(importsOfOtherSources()).toEqual([]);
  });
});
