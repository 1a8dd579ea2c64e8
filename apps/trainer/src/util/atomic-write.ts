import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { writingTo } from './write-errors.js';

/**
 * Writes a file so that a reader (or a crash at any instant, kill -9 included) sees either the old content or the
 * complete new content: write a temp file in the same folder, fsync it, rename it over the target, fsync the folder
 * so the rename itself is durable. A failure (a full disk) names `path` and leaves no temp file.
 */
export function writeFileAtomic(path: string, data: string | Uint8Array | readonly Uint8Array[]): void {
  writingTo(path, () => writeAndRename(path, data));
}

function writeAndRename(path: string, data: string | Uint8Array | readonly Uint8Array[]): void {
  const temp = `${path}.tmp-${process.pid}`;
  const fd = openSync(temp, 'w');
  try {
    const parts = typeof data === 'string' || data instanceof Uint8Array ? [data] : data;
    for (const part of parts) {
      const bytes = typeof part === 'string' ? Buffer.from(part, 'utf8') : part;
      let offset = 0;
      while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
    }
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw error;
  }
  closeSync(fd);
  renameSync(temp, path);
  const dir = openSync(dirname(path), 'r');
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
}
