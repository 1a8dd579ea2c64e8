import { fileURLToPath } from 'node:url';

/**
 * The benchmark files this package carries (data/benchmarks/<name>/test.jsonl), found relative to the code, not
 * the working directory. This module sits directly in src/ because tsup bundles it into dist/node.{js,cjs}, one
 * folder below the package root like src/: the same relative path holds for the sources and the build. A
 * bundler that moves this code elsewhere breaks the path; pass a folder to loadBenchmark then.
 */
export const defaultBenchmarkDir = fileURLToPath(new URL('../data/benchmarks', import.meta.url));
