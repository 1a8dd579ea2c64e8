import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** ../shared/data/benchmarks seen from the repository root (/work/main -> /work/shared). */
export const benchmarkDir = resolve(
  dirname(fileURLToPath(import.meta.url)),
  '../../../../shared/data/benchmarks',
);

export function requireBenchmarkDir(): string {
  if (!existsSync(benchmarkDir)) {
    throw new Error(
      `benchmark data not found at ${benchmarkDir}: these tests need the shared data folder beside the repository (../shared/data/benchmarks)`,
    );
  }
  return benchmarkDir;
}
