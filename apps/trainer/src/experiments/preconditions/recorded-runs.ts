import { z } from 'zod';
import type { PreconditionRun } from './analysis.js';

// Runs of record whose folders are gone (issue 48's main ablation: its runs/ went with a replaced machine) keep the
// measures an earlier analysis wrote for them. They stand in for the runs that have no folder; a run that has both
// must give the recorded measures again, or the analysis stops: two versions of one run must not be mixed.

/** A measure as JSON writes it: NaN (a mean over no values) is written as null. */
const measure = z
  .number()
  .nullable()
  .transform((value) => value ?? Number.NaN);
/** A measure added to the analysis after the runs were recorded: absent reads as NaN too. */
const laterMeasure = z
  .number()
  .nullish()
  .transform((value) => value ?? Number.NaN);

const recordedRun = z.object({
  arm: z.string(),
  seed: z.number().int(),
  avgAt2: measure,
  unexecutedCorrect: laterMeasure,
  toolCorrect: laterMeasure,
  greedyAccuracy: laterMeasure,
  toolUseShare: measure,
  wastedEarly: measure,
  wastedLate: measure,
  gaveUpEarly: measure,
  gaveUpLate: measure,
  allFailedCorrectEarly: measure,
  allFailedCorrectLate: measure,
  responseTokensEarly: measure,
  responseTokensLate: measure,
  decisionPointEntropy: measure,
  steps: z.number().int(),
}) satisfies z.ZodType<PreconditionRun, unknown>;

const recordedAnalysis = z.object({
  runs: z.record(z.string(), z.object({ runs: z.array(recordedRun) })),
});

/** The runs an earlier analysis JSON (`source`, for errors) recorded per lucky-answer level, keyed as written. */
export function recordedRuns(json: unknown, source: string): Map<number, PreconditionRun[]> {
  const parsed = recordedAnalysis.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`${source}: ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  return new Map(Object.entries(parsed.data.runs).map(([level, { runs }]) => [Number(level), runs]));
}

/**
 * The measured runs, plus each recorded run no measured run replaces. A run both measured and recorded must agree
 * on every measure the record holds (to 1e-12; the runs are deterministic), or this throws naming run and measure.
 */
export function withRecorded(
  measured: readonly PreconditionRun[],
  recorded: readonly PreconditionRun[],
  source: string,
): PreconditionRun[] {
  const key = (run: PreconditionRun) => `${run.arm} seed ${run.seed}`;
  const byKey = new Map(measured.map((run) => [key(run), run]));
  const standIns: PreconditionRun[] = [];
  for (const record of recorded) {
    const run = byKey.get(key(record));
    if (run === undefined) {
      standIns.push(record);
      continue;
    }
    for (const [field, value] of Object.entries(record)) {
      if (typeof value !== 'number' || Number.isNaN(value)) continue;
      const again = run[field as keyof PreconditionRun] as number;
      if (!(Math.abs(again - value) <= 1e-12))
        throw new Error(
          `${source}: ${key(record)} not reproduced: ${field} recorded ${value}, measured ${again}`,
        );
    }
  }
  return [...measured, ...standIns];
}
