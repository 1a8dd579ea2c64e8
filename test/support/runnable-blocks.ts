import { readFileSync } from 'node:fs';
import { documentationFiles } from './markdown-links';

/** A fenced code block marked `js runnable`: the Markdown file, the line of its opening fence, its code. */
export interface RunnableBlock {
  file: string;
  line: number;
  code: string;
}

/** The info string that marks a block as a complete program the test suite runs (docs/CONTRIBUTING.md). */
export const RUNNABLE_INFO = 'js runnable';

/**
 * The documentation files whose runnable blocks run against the workspace's builds: docs/ and every README but the
 * published packages' (the packaging check runs their `## Example` block from the packed tarballs instead).
 */
export function runnableBlockFiles(root: string): string[] {
  return documentationFiles(root).filter((file) => !file.startsWith('packages/'));
}

/**
 * Every `js runnable` block of a Markdown text, its code without the fence's indentation (a block inside a list
 * item is indented). A fence opened and never closed is an error naming the file and line.
 */
export function runnableBlocks(file: string, text: string): RunnableBlock[] {
  const lines = text.split('\n');
  const blocks: RunnableBlock[] = [];
  let open: { fence: string; indent: number; line: number; runnable: boolean; body: string[] } | undefined;
  lines.forEach((text, index) => {
    if (open === undefined) {
      const start = /^( {0,3})(`{3,}|~{3,})\s*(.*)$/.exec(text);
      if (start) {
        const info = start[3]!.trim().split(/\s+/).join(' ');
        open = {
          fence: start[2]!,
          indent: start[1]!.length,
          line: index + 1,
          runnable: info === RUNNABLE_INFO,
          body: [],
        };
      }
      return;
    }
    const close = new RegExp(`^ {0,3}${open.fence[0]}{${open.fence.length},}\\s*$`).exec(text);
    if (close) {
      if (open.runnable) blocks.push({ file, line: open.line, code: `${open.body.join('\n')}\n` });
      open = undefined;
      return;
    }
    open.body.push(text.slice(Math.min(open.indent, /^ */.exec(text)![0].length)));
  });
  if (open !== undefined) throw new Error(`${file}:${open.line}: code block never closed`);
  return blocks;
}

/** Every runnable block of the documentation under `root`. */
export function documentationRunnableBlocks(root: string): RunnableBlock[] {
  return runnableBlockFiles(root).flatMap((file) =>
    runnableBlocks(file, readFileSync(`${root}/${file}`, 'utf8')),
  );
}
