/**
 * Splits a byte stream into newline-terminated lines in time linear in its length: each chunk is searched once,
 * from where the previous search stopped, and a line's pieces are joined and decoded once, when its newline
 * arrives. (Appending chunks to a string and searching it again per chunk is quadratic: a 22 MB reply in 64 KiB
 * chunks took 28 s of a blocked event loop.)
 */
export class LineReader {
  private pieces: Buffer[] = [];
  private readonly lines: string[] = [];

  /** Takes the next chunk of the stream. Throws when a line is too long for a string (over ~512 MiB). */
  push(chunk: Buffer): void {
    let start = 0;
    for (let end = chunk.indexOf(10); end >= 0; end = chunk.indexOf(10, start)) {
      this.pieces.push(chunk.subarray(start, end));
      const line = Buffer.concat(this.pieces);
      this.pieces = [];
      this.lines.push(line.toString('utf8'));
      start = end + 1;
    }
    if (start < chunk.length) this.pieces.push(chunk.subarray(start));
  }

  /** The oldest complete line not taken yet, without its newline; undefined when none has arrived. */
  take(): string | undefined {
    return this.lines.shift();
  }
}
