import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  type CurationReport,
  curateByPassRate,
  groupTrajectories,
  type PassRate,
  passRates,
} from '@taorl/data';
import type { RolloutPolicy } from '@taorl/rollout';
import { rolloutAndGrade, samplesOf } from '@taorl/rollout';
import { problemSource } from '../session/problem-source.js';
import { rolloutOptionsOf } from '../session/rollout-options.js';
import type { Session } from '../session/session.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { deriveSeed } from '../util/seeds.js';

export interface CurateOptions {
  /** The first `problems` training problems are scored. */
  problems: number;
  /** Samples per problem: the pass rate's denominator. */
  samples: number;
  /** The policy whose pass rates count (default: the session's rollout policy). */
  policy?: RolloutPolicy;
}

export interface CurateResult {
  /** The problems kept (0 < pass rate < 1), the ones never and always solved, and the pass-rate histogram. */
  report: CurationReport<PassRate>;
  /** `<outDir>/curated.jsonl`: the kept problems' ids and pass rates, one JSON object a line. */
  path: string;
}

/**
 * Model-aware curation (`taorl curate`): `samples` rollouts of each of the first `problems` training problems under
 * the policy, graded, and the problems the policy solves sometimes but not always kept
 * (@taorl/data `curateByPassRate`), written to <outDir>/curated.jsonl.
 */
export async function curateProblems(session: Session, options: CurateOptions): Promise<CurateResult> {
  const { config } = session;
  const problems = (await problemSource(session)).train(1, 0, options.problems);
  const { trajectories } = await rolloutAndGrade(
    options.policy ?? session.rolloutPolicy,
    session,
    samplesOf(problems, options.samples),
    { ...rolloutOptionsOf(config), seed: deriveSeed(config.seed, 'curate') },
  );
  const report = curateByPassRate(passRates(groupTrajectories(trajectories)));
  mkdirSync(config.outDir, { recursive: true });
  const path = join(config.outDir, 'curated.jsonl');
  writeFileAtomic(path, report.kept.map((rate) => `${JSON.stringify(rate)}\n`).join(''));
  return { report, path };
}
