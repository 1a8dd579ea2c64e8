/**
 * A failed write's error with the file in its message. Node's errors for writes to an open descriptor (ENOSPC,
 * EDQUOT, EIO, EFBIG) name only the system call ("ENOSPC: no space left on device, write"), which leaves a user
 * with a full disk guessing which file was being written. The code, errno and syscall stay for callers that test
 * them.
 */
export function namingFile(path: string, error: unknown): unknown {
  if (!(error instanceof Error) || error.message.includes(path)) return error;
  const { code, errno, syscall } = error as NodeJS.ErrnoException;
  return Object.assign(new Error(`${path}: ${error.message}`), { code, errno, syscall, path });
}

/** Runs `write`, rethrowing its failure with `path` in the message (`namingFile`). */
export function writingTo<T>(path: string, write: () => T): T {
  try {
    return write();
  } catch (error) {
    throw namingFile(path, error);
  }
}
