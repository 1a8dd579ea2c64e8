import { parseArgs } from 'node:util';
import {
  BenchmarkFormatError,
  compareAnswers,
  countToolUse,
  type GradeResult,
  grade,
  type ScoredSample,
  scoreBenchmark,
} from '@taorl/eval';
import { createGraderPool, loadBenchmark } from '@taorl/eval/node';
import { type ResponseSample, readSamples } from './samples';

export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

export const usage = `Usage: taorl-eval <command>   (taorl-eval --help prints this)

  grade --pred <response or answer> --gold <answer> [--gold <another>]
      Extract and grade one response; prints the result as JSON. Exit code 0 when correct, 1 when not.

  score <samples.jsonl> [--benchmark <name>] [--data <dir>] [--workers <n>]
      Grade every sample (one JSON object a line: problem_id, response, optional gold, response_tokens, and
      tool_calls as the recorded calls [{status, code}] or as counts with tool_failures, code_lines) and print
      the metrics table. Tool counts a sample does not give are guessed from the response's text (markdown,
      hermes and tags formats only). Samples without gold take it from <dir>/<name>/test.jsonl (names: aime24,
      aime25, amc23, math500, minerva_math, olympiadbench); <dir> defaults to the benchmark files this package
      ships.
`;

/** The taorl-eval command line; returns the exit code (2 for usage errors). */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  if (command === '--help' || command === '-h' || command === 'help') {
    io.stdout(usage);
    return 0;
  }
  try {
    if (command === 'grade') return gradeCommand(rest, io);
    if (command === 'score') return await scoreCommand(rest, io);
  } catch (error) {
    if (
      error instanceof BenchmarkFormatError ||
      (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')
    ) {
      io.stderr(`taorl-eval: ${(error as Error).message}\n`);
      return 2;
    }
    throw error;
  }
  io.stderr(command === undefined ? usage : `taorl-eval: unknown command "${command}"\n\n${usage}`);
  return 2;
}

function gradeCommand(args: readonly string[], io: CliIo): number {
  const { values } = parseArgs({
    args: [...args],
    options: { pred: { type: 'string' }, gold: { type: 'string', multiple: true } },
    strict: true,
  });
  if (values.pred === undefined || values.gold === undefined) {
    io.stderr(`taorl-eval grade: --pred and --gold are required\n\n${usage}`);
    return 2;
  }
  const gold = values.gold.length === 1 ? values.gold[0]! : values.gold;
  const graded = grade(values.pred, gold);
  // A bare answer ("x = \frac12") has nothing to extract from: it is the answer itself.
  const result: GradeResult =
    graded.reason === 'no_answer'
      ? (({ equivalent, reason }) => ({ correct: equivalent, extracted: values.pred!, gold, reason }))(
          compareAnswers(values.pred, gold),
        )
      : graded;
  io.stdout(`${JSON.stringify(result)}\n`);
  return result.correct ? 0 : 1;
}

async function scoreCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...args],
    options: { benchmark: { type: 'string' }, data: { type: 'string' }, workers: { type: 'string' } },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length !== 1) {
    io.stderr(`taorl-eval score: expected one samples file\n\n${usage}`);
    return 2;
  }
  const samples = readSamples(positionals[0]!);
  const golds = goldLookup(samples, values.benchmark, values.data);
  const tasks = samples.map((sample) => {
    const gold = sample.gold ?? golds.get(sample.problemId);
    if (gold === undefined) {
      throw new BenchmarkFormatError(
        `no gold for problem "${sample.problemId}" (give "gold" or --benchmark)`,
      );
    }
    return { response: sample.response, gold };
  });
  const workers = values.workers === undefined ? 0 : Number(values.workers);
  if (!Number.isInteger(workers) || workers < 0)
    throw new BenchmarkFormatError(`--workers must be a non-negative integer`);
  const results = await gradeAll(tasks, workers);
  const report = scoreBenchmark(
    samples.map((sample, index) => scoredSample(sample, results[index]!)),
    values.benchmark ?? positionals[0]!,
  );
  io.stdout(`${report.markdown}\n`);
  return 0;
}

function goldLookup(
  samples: readonly ResponseSample[],
  benchmark?: string,
  data?: string,
): Map<string, readonly string[]> {
  if (samples.every((sample) => sample.gold !== undefined)) return new Map();
  if (benchmark === undefined) return new Map();
  return new Map(loadBenchmark(benchmark, data).map((problem) => [problem.id, problem.gold]));
}

async function gradeAll(
  tasks: { response: string; gold: string | readonly string[] }[],
  workers: number,
): Promise<GradeResult[]> {
  if (workers === 0) return tasks.map((task) => grade(task.response, task.gold));
  const pool = createGraderPool({ size: workers });
  try {
    return await pool.gradeMany(tasks);
  } finally {
    await pool.close();
  }
}

function scoredSample(sample: ResponseSample, result: GradeResult): ScoredSample {
  const counted = countToolUse(sample.response);
  return {
    problemId: sample.problemId,
    correct: result.correct,
    extracted: result.extracted,
    ...(sample.responseTokens === undefined ? {} : { responseTokens: sample.responseTokens }),
    toolCalls: sample.toolCalls ?? counted.toolCalls,
    toolFailures: sample.toolFailures ?? counted.toolFailures,
    codeLines: sample.codeLines ?? counted.codeLines,
  };
}
