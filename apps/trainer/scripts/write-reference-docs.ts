// Writes the generated reference pages, docs/reference/config.md and cli.md, from the config schema and the
// commands' flag tables. Run after changing a config field or a flag: pnpm docs:reference (a test fails while
// a page is stale).
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { referencePages } from './reference/pages.js';

const root = new URL('../../../', import.meta.url);
for (const page of referencePages()) {
  const target = new URL(page.path, root);
  mkdirSync(dirname(target.pathname), { recursive: true });
  writeFileSync(target, page.text);
  console.log(`wrote ${page.path}: ${page.covers}`);
}
