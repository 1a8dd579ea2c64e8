import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { DataError } from '@taorl/data';

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
      // A UTF-8 byte-order mark some editors write would make the first record invalid JSON.
      const clean = line === 1 && text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
      if (clean.trim() !== '') yield { line, text: clean };
    }
  } catch (error) {
    // Only reading fails here: a consumer's own errors end the generator through return(), not throw.
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new DataError(`cannot read (${code})`, line > 0 ? { file: path, line: line + 1 } : { file: path });
  } finally {
    lines.close();
    input.destroy();
  }
}
