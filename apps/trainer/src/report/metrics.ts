import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import type { ArithStrategy } from '@taorl/data';
import type { RlStepMetrics } from '@taorl/rl';
import { writeFileAtomic } from '../util/atomic-write.js';
import { checkRegularFile } from '../util/regular-file.js';
import { writingTo } from '../util/write-errors.js';

/** One SFT step's metrics line. */
export interface SftStepMetrics {
  phase: 'sft';
  step: number;
  loss: number;
  lr: number;
  gradNorm: number;
  /** The step's refusal by the learner, as in the RL line (a non-finite loss or gradient norm: weights unchanged). */
  skippedUpdates?: string[];
  tokens: number;
  tokensPerSecond: number;
  time: { trainingMs: number; totalMs: number };
  /**
   * A baseline branched off the run (the demo's more-SFT arm): its lines continue the step count of the run they
   * branch from, so the report draws them as a line of their own.
   */
  branch?: string;
}

/** A held-out evaluation line. */
export interface EvalMetrics {
  phase: 'eval';
  step: number;
  label: string;
  problems: number;
  accuracy: number;
  passAtK: number;
  toolCallsPerTrajectory: number;
  toolSuccessRate: number;
  /** Tool-calling answers whose every call failed but were right (what C1 removes), as a share of all. */
  allFailedCorrect?: number;
  /** Right answers with at least one failed call, as a share of all (RolloutStats.correctWithToolError). */
  correctWithToolError?: number;
  /** Right answers without a successful call, as a share of all (RolloutStats.unexecutedCorrect). */
  unexecutedCorrect?: number;
  /** Failed or repeated calls per trajectory (RolloutStats.wastedCallsPerTrajectory). */
  wastedCallsPerTrajectory?: number;
  /** Post-tool decision points (the first policy token after each successful call) in the answers. */
  decisionPoints?: number;
  /** Mean entropy at them; absent when there are none. */
  decisionPointEntropy?: number;
  responseTokens: number;
  seconds: number;
  /** Greedy decoding (one sample per problem) instead of sampling at the rollout temperature. */
  greedy?: boolean;
  /** Embedded task: share of answers per strategy, and accuracy per problem level. */
  strategies?: Record<ArithStrategy, number>;
  accuracyByLevel?: Record<string, number>;
}

export type MetricsLine = RlStepMetrics | SftStepMetrics | EvalMetrics;

export interface ReadMetricsOptions {
  /**
   * Called with a notice when the file's last line is cut off (no newline and not JSON, as a full disk leaves an
   * append); that line is then dropped instead of being an error.
   */
  onPartialLastLine?(notice: string): void;
}

/**
 * Reads metrics.jsonl; a malformed line is an error naming the file and line (see `onPartialLastLine`), and so is a
 * path that is not a regular file (a device or a FIFO would be read without end).
 */
export function readMetrics(path: string, options: ReadMetricsOptions = {}): MetricsLine[] {
  checkRegularFile(path);
  if (!existsSync(path)) return [];
  const text = readFileSync(path, 'utf8');
  const lines = text.split('\n');
  const result: MetricsLine[] = [];
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch (error) {
      // Only the unterminated last line can be a cut-off append: each line is written with its newline at once.
      if (index === lines.length - 1 && options.onPartialLastLine !== undefined) {
        options.onPartialLastLine(
          `${path}:${index + 1}: dropped a cut-off last line (${line.length} characters without a newline, ` +
            'as a full disk leaves an append)',
        );
        return;
      }
      throw new Error(`${path}:${index + 1}: malformed metrics line: ${(error as Error).message}`);
    }
    const phase = (parsed as { phase?: unknown }).phase;
    if (phase !== 'rl' && phase !== 'sft' && phase !== 'eval') {
      throw new Error(`${path}:${index + 1}: metrics line has no valid 'phase'`);
    }
    result.push(parsed as MetricsLine);
  });
  return result;
}

/**
 * Appends one JSON line per step. On resume, lines written after the checkpoint being resumed are removed first,
 * so a resumed run's file equals an uninterrupted run's.
 */
export class MetricsWriter {
  constructor(readonly path: string) {}

  /**
   * Keeps only the lines a run resumed after `keep` wants (the phases before it and its steps up to `step`). A
   * cut-off last line (the run ended on a full disk) is dropped and reported to `warn`.
   */
  truncateAfter(
    keep: (line: MetricsLine) => boolean,
    warn: (notice: string) => void = () => undefined,
  ): void {
    const kept = readMetrics(this.path, { onPartialLastLine: warn }).filter(keep);
    writeFileAtomic(this.path, kept.map((line) => `${JSON.stringify(line)}\n`).join(''));
  }

  write(line: MetricsLine): void {
    writingTo(this.path, () => appendFileSync(this.path, `${JSON.stringify(line)}\n`));
  }
}
