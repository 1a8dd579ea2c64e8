import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';

/** One non-blank line of a text file with its 1-based line number. */
export interface NumberedLine {
  line: number;
  text: string;
}

/** Streams the non-blank lines of a UTF-8 text file (LF or CRLF) with their 1-based numbers. */
export async function* readLines(path: string): AsyncGenerator<NumberedLine> {
  const input = createReadStream(path, { encoding: 'utf8' });
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  let line = 0;
  try {
    for await (const text of lines) {
      line++;
      if (text.trim() !== '') yield { line, text };
    }
  } finally {
    lines.close();
    input.destroy();
  }
}
