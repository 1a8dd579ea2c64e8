// An uncaught MemoryError ends a Python program with a traceback whose last line names it (numpy's
// `numpy.core._exceptions._ArrayMemoryError: Unable to allocate ...` included). Both backends classify `memory` this
// way: code that prints such a line itself and exits non-zero gets nothing it could not get by raising MemoryError.
const MEMORY_ERROR_LINE = /^(\w+\.)*\w*MemoryError\b/;

/** True when the last line of `stderr` is an uncaught MemoryError. */
export function endsWithMemoryError(stderr: string): boolean {
  const text = stderr.trimEnd();
  return MEMORY_ERROR_LINE.test(text.slice(text.lastIndexOf('\n') + 1));
}
