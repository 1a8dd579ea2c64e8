import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it, vi } from 'vitest';

// The cookbook promises runnable snippets: run each ts block against this repository's sources.
const cookbook = readFileSync(new URL('../../../docs/cookbook.md', import.meta.url), 'utf8');
const snippets = [...cookbook.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
const sources: Record<string, string> = {
  '@taorl/advantage': new URL('../src/index.ts', import.meta.url).pathname,
  '@taorl/filter': new URL('../../filter/src/index.ts', import.meta.url).pathname,
};
const dir = mkdtempSync(join(tmpdir(), 'taorl-cookbook-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('docs/cookbook.md', () => {
  it('has snippets', () => {
    expect(snippets.length).toBeGreaterThanOrEqual(6);
  });

  snippets.forEach((code, n) => {
    it(`snippet ${n + 1} runs and prints`, async () => {
      const file = join(dir, `snippet-${n}.ts`);
      writeFileSync(
        file,
        code.replace(/from '(@taorl\/\w+)'/g, (_, name: string) => `from '${sources[name]}'`),
      );
      const log = vi.spyOn(console, 'log').mockImplementation(() => {});
      try {
        await import(pathToFileURL(file).href);
        expect(log).toHaveBeenCalled();
      } finally {
        log.mockRestore();
      }
    });
  });
});
