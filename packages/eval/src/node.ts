// The Node entry (@taorl/eval/node): what reads files or starts worker threads. Modules behind it import the
// portable entry's exports from '@taorl/eval' (left external in the build), never by relative path, so an error
// class is the same object whichever entry a caller imports it from.
export { defaultBenchmarkDir } from './benchmarkDir';
export { loadCodeProblems } from './benchmarks/code-problems';
export { type GpqaOptions, type GpqaProblem, loadGpqa } from './benchmarks/gpqa';
export {
  type LiveCodeBenchOptions,
  type LiveCodeBenchProblem,
  loadLiveCodeBench,
} from './benchmarks/livecodebench';
export { benchmarkNames, loadBenchmark } from './benchmarks/load';
export { loadVerlParquet } from './benchmarks/verl';
export { createGraderPool, type GraderPool, type GraderPoolOptions } from './pool/pool';
export type { GradeTask } from './pool/protocol';
