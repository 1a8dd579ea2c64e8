import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentationRunnableBlocks, type RunnableBlock, runnableBlocks } from './support/runnable-blocks';

// Every `js runnable` block of README.md, docs/ and the trainer's README runs as written, as an ES module, against
// the workspace's builds (docs/CONTRIBUTING.md, "Runnable examples"). The blocks are written into a folder inside
// apps/trainer, whose node_modules holds every @taorl package (and the trainer names itself, @taorl/trainer), and
// run by plain node, without the @taorl/source condition, so each import loads a package's dist/. The tier with
// builds (`pnpm test:dist`) runs this file; the published packages' README examples run from the packed tarballs
// in the packaging check instead.

const root = fileURLToPath(new URL('..', import.meta.url));
const builds = ['advantage', 'data', 'eval', 'filter', 'grpo', 'rollout', 'sandbox']
  .map((name) => `packages/${name}/dist/index.js`)
  .concat('apps/trainer/dist/index.js');
let folder: string;

/** Runs one block in its own working folder under `parent`; on failure, what names the block and why. */
function runBlock(block: RunnableBlock, parent: string): string | null {
  const dir = mkdtempSync(join(parent, 'block-'));
  const file = join(dir, 'example.mjs');
  writeFileSync(file, block.code);
  const run = spawnSync(process.execPath, [file], { cwd: dir, encoding: 'utf8', timeout: 240_000 });
  if (run.status === 0) return null;
  const why = run.error ? String(run.error) : `exit ${run.status ?? run.signal}`;
  return `${block.file}:${block.line}: the js runnable block failed (${why})\n${run.stderr.slice(-4000)}`;
}

beforeAll(() => {
  const missing = builds.filter((path) => !existsSync(join(root, path)));
  if (missing.length > 0) {
    throw new Error(
      `the runnable blocks run against the builds; missing ${missing.join(', ')}: run pnpm build`,
    );
  }
  // Inside the repository, so that the blocks' imports resolve to the workspace packages; git-ignored.
  folder = mkdtempSync(join(root, 'apps/trainer/.doc-examples-'));
});
afterAll(() => {
  if (folder !== undefined) rmSync(folder, { recursive: true, force: true });
});

describe('runnable blocks in the docs', () => {
  it('finds js runnable blocks only, with their opening line, unindented', () => {
    const text = [
      '# Page',
      '```js',
      'not marked',
      '```',
      '1. A step:',
      '   ```js runnable',
      '   console.log(1);',
      '     // indented further',
      '   ```',
      '```ts runnable',
      'typescript: not run by node',
      '```',
    ].join('\n');
    expect(runnableBlocks('docs/page.md', text)).toEqual([
      { file: 'docs/page.md', line: 6, code: 'console.log(1);\n  // indented further\n' },
    ]);
    expect(() => runnableBlocks('docs/page.md', '```js runnable\nconsole.log(1);\n')).toThrow(
      'docs/page.md:1: code block never closed',
    );
  });

  it('names the file and line of a block that fails', () => {
    const broken = { file: 'docs/broken.md', line: 7, code: "import { nothing } from '@taorl/eval';\n" };
    const report = runBlock(broken, folder);
    expect(report).toMatch(/^docs\/broken\.md:7: the js runnable block failed \(exit 1\)/);
    expect(report).toContain("does not provide an export named 'nothing'");
    expect(
      runBlock({ file: 'docs/fine.md', line: 1, code: "import { grade } from '@taorl/eval';\n" }, folder),
    ).toBe(null);
  });

  const blocks = documentationRunnableBlocks(root);
  it('the docs hold runnable blocks', () => {
    console.log(
      `${blocks.length} js runnable blocks: ${blocks.map((b) => `${b.file}:${b.line}`).join(', ')}`,
    );
    expect(blocks.length).toBeGreaterThanOrEqual(3);
  });

  for (const block of blocks) {
    it(`${block.file}:${block.line} runs`, () => {
      expect(runBlock(block, folder)).toBe(null);
    }, 300_000);
  }
});
