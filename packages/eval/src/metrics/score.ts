import { compareAnswers } from '../grade';
import { passAtK } from './passAtK';

/** One graded trajectory. Token and tool counts are optional; metrics over absent counts are reported as null. */
export interface ScoredSample {
  readonly problemId: string;
  readonly correct: boolean;
  /** The extracted answer, for majority voting. */
  readonly extracted?: string | null;
  readonly responseTokens?: number;
  readonly toolCalls?: number;
  readonly toolFailures?: number;
  readonly codeLines?: number;
}

export interface BenchmarkReport {
  readonly benchmark: string;
  readonly problems: number;
  /** Samples per problem (K); the smallest count when problems differ. */
  readonly samplesPerProblem: number;
  /** Avg@K: mean over problems of the fraction of correct samples. */
  readonly avgAtK: number;
  /** Pass@k (unbiased estimator) for k = 1, 2, 4, ... up to K. */
  readonly passAtK: Readonly<Record<number, number>>;
  /** Maj@K: the most common answer (by equivalence) is correct; null without extracted answers. */
  readonly majAtK: number | null;
  /** Len@K: mean response length in tokens. */
  readonly lenAtK: number | null;
  readonly toolCallsPerTrajectory: number | null;
  readonly codeLinesPerTrajectory: number | null;
  /** Fraction of tool calls that ran without an error. */
  readonly toolSuccessRate: number | null;
  /** The report as a markdown table. */
  readonly markdown: string;
}

/** Aggregates graded samples of one benchmark into the paper's metrics (Avg@K, Pass@k, Maj@K, Len@K, tool use). */
export function scoreBenchmark(samples: readonly ScoredSample[], benchmark = 'benchmark'): BenchmarkReport {
  if (samples.length === 0) throw new RangeError(`scoreBenchmark(${benchmark}): no samples`);
  const byProblem = new Map<string, ScoredSample[]>();
  for (const sample of samples) {
    const group = byProblem.get(sample.problemId);
    if (group) group.push(sample);
    else byProblem.set(sample.problemId, [sample]);
  }
  const groups = [...byProblem.values()];
  const k = Math.min(...groups.map((group) => group.length));
  const passAt: Record<number, number> = {};
  for (let size = 1; size <= k; size *= 2)
    passAt[size] = meanOf(groups, (group) => passAtK(group.length, correctCount(group), size));
  if (passAt[k] === undefined)
    passAt[k] = meanOf(groups, (group) => passAtK(group.length, correctCount(group), k));

  const report = {
    benchmark,
    problems: groups.length,
    samplesPerProblem: k,
    avgAtK: meanOf(groups, (group) => correctCount(group) / group.length),
    passAtK: passAt,
    majAtK: samples.every((sample) => sample.extracted !== undefined)
      ? meanOf(groups, majorityCorrect)
      : null,
    lenAtK: optionalMean(samples, (sample) => sample.responseTokens),
    toolCallsPerTrajectory: optionalMean(samples, (sample) => sample.toolCalls),
    codeLinesPerTrajectory: optionalMean(samples, (sample) => sample.codeLines),
    toolSuccessRate: toolSuccessRate(samples),
  };
  return { ...report, markdown: reportMarkdown(report) };
}

const correctCount = (group: readonly ScoredSample[]): number =>
  group.filter((sample) => sample.correct).length;

function meanOf<T>(items: readonly T[], value: (item: T) => number): number {
  return items.reduce((sum, item) => sum + value(item), 0) / items.length;
}

function optionalMean(
  samples: readonly ScoredSample[],
  value: (sample: ScoredSample) => number | undefined,
): number | null {
  const values = samples.map(value);
  return values.every((item) => item !== undefined) ? meanOf(values as number[], (item) => item) : null;
}

function toolSuccessRate(samples: readonly ScoredSample[]): number | null {
  if (samples.some((sample) => sample.toolCalls === undefined || sample.toolFailures === undefined))
    return null;
  const calls = samples.reduce((sum, sample) => sum + sample.toolCalls!, 0);
  const failures = samples.reduce((sum, sample) => sum + sample.toolFailures!, 0);
  return calls === 0 ? null : 1 - failures / calls;
}

/**
 * 1 when the largest class of equivalent answers is a correct one. Answers are first grouped by their text, then
 * the distinct texts merged by equivalence, so K samples cost far fewer than K^2 comparisons. Ties go to the class
 * seen first; samples without an answer do not vote.
 */
function majorityCorrect(group: readonly ScoredSample[]): number {
  const classes: { answer: string; votes: number; correct: boolean }[] = [];
  for (const sample of group) {
    if (sample.extracted === null || sample.extracted === undefined) continue;
    const answer = sample.extracted;
    const same =
      classes.find((item) => item.answer === answer) ??
      classes.find((item) => compareAnswers(answer, item.answer).equivalent);
    if (same) same.votes += 1;
    else classes.push({ answer, votes: 1, correct: sample.correct });
  }
  if (classes.length === 0) return 0;
  const winner = classes.reduce((best, item) => (item.votes > best.votes ? item : best));
  return winner.correct ? 1 : 0;
}

function reportMarkdown(report: Omit<BenchmarkReport, 'markdown'>): string {
  const percent = (value: number | null): string => (value === null ? '–' : `${(100 * value).toFixed(1)}`);
  const plain = (value: number | null): string => (value === null ? '–' : value.toFixed(1));
  const k = report.samplesPerProblem;
  const columns: [string, string][] = [
    ['Benchmark', report.benchmark],
    ['Problems', String(report.problems)],
    [`Avg@${k}`, percent(report.avgAtK)],
    ...Object.entries(report.passAtK).map(([size, value]): [string, string] => [
      `Pass@${size}`,
      percent(value),
    ]),
    [`Maj@${k}`, percent(report.majAtK)],
    [`Len@${k}`, plain(report.lenAtK)],
    ['Tool calls', plain(report.toolCallsPerTrajectory)],
    ['Code lines', plain(report.codeLinesPerTrajectory)],
    ['Tool success %', percent(report.toolSuccessRate)],
  ];
  return [
    `| ${columns.map(([name]) => name).join(' | ')} |`,
    `| ${columns.map(() => '---').join(' | ')} |`,
    `| ${columns.map(([, value]) => value).join(' | ')} |`,
  ].join('\n');
}
