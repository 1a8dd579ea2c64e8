/** One benchmark problem with its gold answer(s) after the benchmark's quirks have been resolved. */
export interface BenchmarkProblem {
  readonly benchmark: string;
  readonly id: string;
  readonly problem: string;
  /** Any of these is a correct answer (OlympiadBench lists; one entry elsewhere). */
  readonly gold: readonly string[];
}

/** Raised for a malformed benchmark file, naming the file, the line and the field. */
export class BenchmarkFormatError extends Error {
  override readonly name = 'BenchmarkFormatError';
}
