import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

/**
 * The grader worker's code, run with `new Worker(source, { eval: true })`. From the TypeScript sources (tests,
 * benchmarks) it loads worker.ts through tsx's tsImport (a development dependency of the repository). The build
 * replaces this whole module with one that returns worker.ts bundled into a single script (tsup.config.ts), so
 * the pool needs no file beside the code: it keeps working when an application bundles @taorl/eval/node.
 */
export function graderWorkerSource(): string {
  const here = import.meta.url;
  const tsxApi = pathToFileURL(createRequire(here).resolve('tsx/esm/api')).href;
  const entry = new URL('./worker.ts', here).href;
  return `import(${JSON.stringify(tsxApi)}).then((api) => api.tsImport(${JSON.stringify(entry)}, ${JSON.stringify(here)}))`;
}
