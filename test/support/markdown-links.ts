import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** The repository's web address: a link into its main branch is checked as a link to the file in this checkout. */
const REPOSITORY_MAIN =
  /^https:\/\/github\.com\/taorl\/taorl\/(?:blob|tree)\/main\/([^#?]*)(?:\?[^#]*)?(#.*)?$/;

/** A link found in a Markdown file: where, and its target as written. */
export interface MarkdownLink {
  file: string;
  line: number;
  target: string;
}

/** What the checker found: the links it resolved, the external ones it left alone, and the broken ones. */
export interface LinkReport {
  checked: number;
  external: number;
  problems: string[];
}

/** The Markdown files the docs are made of: everything under docs/ and every README.md, outside generated folders. */
export function documentationFiles(root: string): string[] {
  const skipped = new Set(['node_modules', 'dist', '.git', '.turbo', 'coverage', 'api']);
  const walk = (dir: string, underDocs: boolean): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const path = join(dir, entry.name);
      // docs/api/ is the generated API reference (pnpm docs:api), git-ignored; elsewhere `api` is a folder name.
      if (entry.isDirectory()) {
        if (skipped.has(entry.name) && (entry.name !== 'api' || relative(root, path) === 'docs/api'))
          return [];
        return walk(path, underDocs || relative(root, path) === 'docs');
      }
      return entry.name.endsWith('.md') && (underDocs || entry.name === 'README.md') ? [path] : [];
    });
  return walk(root, false).map((file) => relative(root, file));
}

/** The text of a Markdown file with its fenced code blocks and inline code blanked, lines kept in place. */
function withoutCode(text: string): string {
  return text
    .replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, (block) => block.replace(/[^\n]/g, ' '))
    .replace(/`+[^`\n]*`+/g, (code) => ' '.repeat(code.length));
}

/** Every inline link and image `[text](target)` and reference definition `[label]: target` in a file. */
export function markdownLinks(root: string, file: string): MarkdownLink[] {
  const text = withoutCode(readFileSync(join(root, file), 'utf8'));
  const links: MarkdownLink[] = [];
  const lineOf = (index: number) => text.slice(0, index).split('\n').length;
  for (const match of text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    links.push({ file, line: lineOf(match.index), target: match[1]! });
  }
  for (const match of text.matchAll(/^ {0,3}\[[^\]]+\]:\s+<?(\S+?)>?(?:\s|$)/gm)) {
    links.push({ file, line: lineOf(match.index), target: match[1]! });
  }
  return links;
}

/** GitHub's anchor for a heading: its text lower-cased, punctuation dropped, spaces as hyphens. */
export function headingAnchor(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // a link's text
    .replace(/`([^`]*)`/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/(^|\W)[*_]+|[*_]+(?=\W|$)/g, '$1') // emphasis markers, not snake_case
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{M}\p{N}_\- ]/gu, '').replace(/ /g, '-');
}

const anchorCache = new Map<string, Set<string>>();

/** The anchors a Markdown file defines: its headings (numbered when repeated, as GitHub does) and `id`s. */
export function anchorsOf(path: string): Set<string> {
  const cached = anchorCache.get(path);
  if (cached) return cached;
  const text = readFileSync(path, 'utf8').replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, heading] of text.matchAll(/^ {0,3}#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = headingAnchor(heading!);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  for (const [, id] of text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(id!);
  anchorCache.set(path, anchors);
  return anchors;
}

/**
 * Checks every link of the documentation files: a relative link (or one into this repository's main branch) must
 * name a file or folder that exists, and its `#anchor`, in a Markdown file, a heading or id there. External links
 * are counted, not fetched.
 */
export function checkLinks(root: string, files: string[]): LinkReport {
  const report: LinkReport = { checked: 0, external: 0, problems: [] };
  for (const file of files) {
    for (const link of markdownLinks(root, file)) {
      const where = `${link.file}:${link.line}: ${link.target}`;
      const inRepository = REPOSITORY_MAIN.exec(link.target);
      let path: string;
      let anchor: string | undefined;
      if (inRepository) {
        path = resolve(root, decodeURIComponent(inRepository[1]!));
        anchor = inRepository[2]?.slice(1);
      } else if (/^[a-z][a-z+.-]*:/i.test(link.target)) {
        report.external += 1;
        continue;
      } else {
        const [target = '', fragment] = link.target.split('#', 2);
        path = target === '' ? join(root, file) : resolve(root, dirname(file), decodeURIComponent(target));
        anchor = fragment;
      }
      report.checked += 1;
      if (!existsSync(path)) {
        report.problems.push(`${where}: no such file ${relative(root, path)}`);
        continue;
      }
      if (anchor && statSync(path).isFile() && path.endsWith('.md') && !anchorsOf(path).has(anchor)) {
        report.problems.push(`${where}: no heading #${anchor} in ${relative(root, path)}`);
      }
    }
  }
  return report;
}
