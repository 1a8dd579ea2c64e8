import { lstatSync, type Stats } from 'node:fs';

/** What `stat` is, in words, when it is not a regular file. */
function kind(stat: Stats): string {
  if (stat.isSymbolicLink()) return 'a symbolic link';
  if (stat.isDirectory()) return 'a folder';
  if (stat.isCharacterDevice()) return 'a character device';
  if (stat.isBlockDevice()) return 'a block device';
  if (stat.isFIFO()) return 'a FIFO (named pipe)';
  if (stat.isSocket()) return 'a socket';
  return 'not a regular file';
}

/**
 * Why `path` cannot be a file a run reads and writes, in words, or null when it is a regular file or is missing. A
 * link is refused whatever it points at: read, a device (/dev/zero) or a FIFO never ends and appends to one go
 * nowhere; a run keeps only regular files it created.
 */
export function notRegularFile(path: string): string | null {
  const stat = lstatSync(path, { throwIfNoEntry: false });
  if (stat === undefined || stat.isFile()) return null;
  return `${path} is ${kind(stat)}, not a regular file`;
}

/** Throws unless `path` is a regular file or missing (`notRegularFile`), saying what to do. */
export function checkRegularFile(path: string): void {
  const problem = notRegularFile(path);
  if (problem !== null) throw new Error(`${problem}: remove it, or choose another folder`);
}
