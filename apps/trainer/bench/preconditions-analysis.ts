/**
 * Issue 48's pre-registered analysis (docs/experiments/preconditions.md, "Analysis (fixed)") over the finished runs
 * of the three ablation folders: H1's tool-use share (c1 - grpo at each lucky-answer level, and its slope), H2's
 * held-out Avg@2 (bonus - grpo), H3's within-seed correlation of wasted calls with Avg@2, and the secondary
 * measures, each paired by seed against grpo with its 95% interval. Runs still going are left out and counted.
 * Then the follow-up of docs/experiments/preconditions-c1-reject.md (its own folder, paired with the main
 * ablation's grpo runs): F1-F3 and its measures without a predicted direction. A hypothesis whose pre-registered
 * precondition failed on the start evaluation of seed 1 (`<folder>/start/seed-1/held-out.json`) is reported as not
 * tested, whatever its result.
 *
 * `recorded`, an earlier analysis JSON, stands in for runs whose folders are gone (the main ablation's): its per-run
 * measures count where no folder is, and a run in both must reproduce them.
 *
 *   pnpm bench apps/trainer/bench/preconditions-analysis.ts [runsRoot=runs] [json=<runsRoot>/preconditions-analysis.json] [recorded]
 *   pnpm bench apps/trainer/bench/preconditions-analysis.ts docs/results/preconditions-runs \
 *     docs/results/preconditions-analysis.json docs/results/preconditions-analysis.json
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { checkDecoding } from '../src/experiments/ablate/run-summary.js';
import {
  h1Slope,
  h3Correlation,
  type PreconditionRun,
  pairedDifference,
  preconditionRun,
  type RunMeasure,
  verdict,
} from '../src/experiments/preconditions/analysis.js';
import { checkPreconditions, reportedVerdict } from '../src/experiments/preconditions/preconditions.js';
import { recordedRuns, withRecorded } from '../src/experiments/preconditions/recorded-runs.js';
import { readMetrics } from '../src/index.js';
import type { EvalMetrics } from '../src/report/metrics.js';

const root = resolve(process.argv[2] ?? 'runs');
const jsonPath = resolve(process.argv[3] ?? join(root, 'preconditions-analysis.json'));
const recordedPath = process.argv[4] === undefined ? undefined : resolve(process.argv[4]);
const recorded =
  recordedPath === undefined
    ? new Map<number, PreconditionRun[]>()
    : recordedRuns(JSON.parse(readFileSync(recordedPath, 'utf8')), recordedPath);
const LEVELS = new Map([
  [0, 'preconditions-lucky0'],
  [0.15, 'preconditions'],
  [0.3, 'preconditions-lucky30'],
]);

/**
 * The finished runs (a done.json beside their metrics) of one ablation folder, then the recorded runs of `level`
 * that have no folder; and the runs not finished.
 */
function finishedRuns(
  folder: string,
  level?: number,
): { runs: PreconditionRun[]; unfinished: string[]; recorded: number } {
  const runsDir = join(root, folder, 'runs');
  const runs: PreconditionRun[] = [];
  const unfinished: string[] = [];
  const records = (level === undefined ? undefined : recorded.get(level)) ?? [];
  const done = () => {
    const all = withRecorded(runs, records, recordedPath ?? '');
    return { runs: all, unfinished, recorded: all.length - runs.length };
  };
  if (!existsSync(runsDir)) return done();
  for (const arm of readdirSync(runsDir).sort()) {
    for (const seedDir of readdirSync(join(runsDir, arm)).sort()) {
      const dir = join(runsDir, arm, seedDir);
      const seed = Number(seedDir.replace(/^seed-/, ''));
      if (!existsSync(join(dir, 'done.json'))) {
        unfinished.push(`${arm} ${seedDir}`);
        continue;
      }
      const metrics = join(dir, 'metrics.jsonl');
      runs.push(preconditionRun(arm, seed, readMetrics(metrics), metrics));
    }
  }
  return done();
}

/** The start evaluation of seed 1 of one level's folder, when it is there. */
function startOfSeed1(folder: string) {
  const source = join(root, folder, 'start', 'seed-1', 'held-out.json');
  if (!existsSync(source)) return undefined;
  // The pre-registration checks the sampled evaluation (temperature 0.7), not the greedy one beside it.
  return {
    metrics: checkDecoding(JSON.parse(readFileSync(source, 'utf8')) as EvalMetrics, false, source),
    source,
  };
}

const interval = (cell: { mean: number; halfWidth: number } | null, scale = 100, digits = 1) =>
  cell === null
    ? 'not run'
    : `${(scale * cell.mean).toFixed(digits)} ± ${Number.isNaN(cell.halfWidth) ? 'n/a' : (scale * cell.halfWidth).toFixed(digits)}`;

const byLevel = new Map([...LEVELS].map(([level, folder]) => [level, finishedRuns(folder, level)]));
const main = byLevel.get(0.15)!;
const arms = [...new Set(main.runs.map((run) => run.arm))].filter((arm) => arm !== 'grpo');

const preconditions = checkPreconditions(
  new Map([...LEVELS].map(([level, folder]) => [level, startOfSeed1(folder)])),
);
const h1 = new Map(
  [...byLevel].map(([level, { runs }]) => [level, pairedDifference(runs, 'c1', 'toolUseShare')]),
);
const slope = h1Slope(new Map([...byLevel].map(([level, { runs }]) => [level, runs])));
const h2 = pairedDifference(main.runs, 'bonus', 'avgAt2');
const h3 = h3Correlation(main.runs);
const secondary: RunMeasure[] = [
  'avgAt2',
  'toolUseShare',
  'wastedEarly',
  'wastedLate',
  'gaveUpEarly',
  'gaveUpLate',
  'allFailedCorrectEarly',
  'allFailedCorrectLate',
  'responseTokensEarly',
  'responseTokensLate',
  'decisionPointEntropy',
];

const lines: string[] = [];
for (const [level, { runs, unfinished, recorded: standIns }] of byLevel)
  lines.push(
    `luckyShare ${level} (${LEVELS.get(level)}): ${runs.length} finished run(s)` +
      (standIns > 0 ? ` (${standIns} of them recorded in ${recordedPath}, their folders gone)` : '') +
      (unfinished.length > 0 ? `, not finished: ${unfinished.join(', ')}` : ''),
  );
const H1_PREDICTION = new Map([
  [0, 'about 0'],
  [0.15, 'smaller than at 0.3'],
  [0.3, '+5 or more'],
]);
// H1 predicts a direction at 0.3 and for the slope; at 0 and 0.15 only a size relative to those, so no verdict there.
const h1Verdict = (level: number, cell: ReturnType<typeof pairedDifference>) =>
  level === 0.3 ? reportedVerdict(preconditions.H1, verdict(cell, 1)) : '-';
const h3Verdict = Number.isNaN(h3.high) ? 'not run' : h3.high < 0 ? 'holds' : 'fails';
lines.push(
  '',
  ...Object.values(preconditions).map(
    ({ hypothesis, met, detail }) =>
      `precondition of ${hypothesis}: ${met === null ? detail : `${met ? 'met' : 'NOT met'} (${detail})`}`,
  ),
  '',
  '| hypothesis | measure | predicted | paired difference (points, 95% interval) | seeds | verdict |',
  '|---|---|---|---|---|---|',
);
for (const [level, cell] of h1)
  lines.push(
    `| H1 | tool-use share, steps 1-30, c1 - grpo, luckyShare ${level} | ${H1_PREDICTION.get(level)} | ${interval(cell)} | ${cell?.seeds.length ?? 0} | ${h1Verdict(level, cell)} |`,
  );
lines.push(
  `| H1 | slope of c1 - grpo over luckyShare (points per unit) | > 0 | ${interval(slope)} | ${slope?.n ?? 0} | ${reportedVerdict(preconditions.H1, verdict(slope, 1))} |`,
  `| H2 | held-out Avg@2, bonus - grpo | +3 or more | ${interval(h2)} | ${h2?.seeds.length ?? 0} | ${reportedVerdict(preconditions.H2, verdict(h2, 1))} |`,
  `| H3 | within-seed r, wasted calls (last quarter) with Avg@2, ${h3.n} runs | < 0 | ${h3.r.toFixed(2)} [${h3.low.toFixed(2)}, ${h3.high.toFixed(2)}] | | ${reportedVerdict(preconditions.H3, h3Verdict)} |`,
  '',
  `| measure (luckyShare 0.15) | grpo mean | ${arms.map((arm) => `${arm} - grpo`).join(' | ')} |`,
  `|---|---|${arms.map(() => '---|').join('')}`,
);
const grpoRuns = main.runs.filter((run) => run.arm === 'grpo');
for (const measure of secondary) {
  const scale = measure.startsWith('responseTokens') || measure.startsWith('wasted') ? 1 : 100;
  const digits = scale === 1 ? 3 : 1;
  const grpoMean = grpoRuns.reduce((total, run) => total + run[measure], 0) / grpoRuns.length;
  lines.push(
    `| ${measure} | ${(scale * grpoMean).toFixed(digits)} | ${arms.map((arm) => interval(pairedDifference(main.runs, arm, measure), scale, digits)).join(' | ')} |`,
  );
}

const FOLLOW_UP = 'preconditions-c1-reject';
const followUp = finishedRuns(FOLLOW_UP);
// Paired with the main ablation's runs of the same seeds: the same starting policy, problems and code.
const pooled = [...main.runs.filter((run) => run.arm === 'grpo' || run.arm === 'c1'), ...followUp.runs];
const f = {
  f1: pairedDifference(pooled, 'c1-reject', 'toolUseShare'),
  f2: pairedDifference(pooled, 'c1-reject', 'unexecutedCorrect'),
  f3: pairedDifference(pooled, 'c1-reject', 'toolCorrect'),
};
// The follow-up's pre-registration draws its verdicts on all 5 seeds, not before.
const followUpVerdict = (cell: ReturnType<typeof pairedDifference>, direction: 1 | -1) =>
  cell !== null && cell.seeds.length < 5
    ? `none yet (${cell.seeds.length} of 5 seeds)`
    : verdict(cell, direction);
lines.push(
  '',
  `follow-up (${FOLLOW_UP}, exploratory): ${followUp.runs.length} finished run(s)` +
    (followUp.unfinished.length > 0 ? `, not finished: ${followUp.unfinished.join(', ')}` : ''),
  '',
  '| hypothesis | measure, c1-reject - grpo | paired difference (points, 95% interval) | seeds | verdict |',
  '|---|---|---|---|---|',
  `| F1 | tool-use share, steps 1-30 (+5 or more) | ${interval(f.f1)} | ${f.f1?.seeds.length ?? 0} | ${followUpVerdict(f.f1, 1)} |`,
  `| F2 | held-out right without a successful call (-5 or more) | ${interval(f.f2)} | ${f.f2?.seeds.length ?? 0} | ${followUpVerdict(f.f2, -1)} |`,
  `| F3 | held-out right through the tool (> 0) | ${interval(f.f3)} | ${f.f3?.seeds.length ?? 0} | ${followUpVerdict(f.f3, 1)} |`,
  '',
  '| measure | c1-reject mean | c1-reject - grpo | c1-reject - c1 |',
  '|---|---|---|---|',
);
const followUpMeasures: RunMeasure[] = [
  'avgAt2',
  'greedyAccuracy',
  'toolUseShare',
  'unexecutedCorrect',
  'toolCorrect',
];
for (const measure of followUpMeasures) {
  const own = followUp.runs.reduce((total, run) => total + run[measure], 0) / followUp.runs.length;
  lines.push(
    `| ${measure} | ${followUp.runs.length === 0 ? 'not run' : (100 * own).toFixed(1)} | ${interval(pairedDifference(pooled, 'c1-reject', measure))} | ${interval(pairedDifference(pooled, 'c1-reject', measure, 'c1'))} |`,
  );
}
console.log(lines.join('\n'));
writeFileSync(
  jsonPath,
  `${JSON.stringify({ preconditions, h1: Object.fromEntries(h1), slope, h2, h3, runs: Object.fromEntries([...byLevel].map(([level, r]) => [level, r])), followUp: { ...f, runs: followUp } }, null, 2)}\n`,
);
console.log(`\nwrote ${jsonPath} (points: shares x 100; wasted calls and tokens per trajectory as they are)`);
