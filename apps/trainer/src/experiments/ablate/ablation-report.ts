import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { RlStepMetrics } from '@taorl/rl';
import type { TopLevelSpec } from 'vega-lite';
import { lineChart, renderSvg } from '../../report/charts.js';
import { escapeHtml } from '../../report/escape-html.js';
import { htmlPage } from '../../report/html-page.js';
import { type TrendName, trendNames } from '../../report/rl-trends.js';
import { writeFileAtomic } from '../../util/atomic-write.js';
import {
  type CorrelationWithInterval,
  centredWithin,
  correlationWithInterval,
  type MeanWithInterval,
  meanWithInterval,
} from './confidence.js';
import { mechanismColumns, type RunSummary, summaryColumns } from './run-summary.js';
import type { AblationVariant } from './variants.js';

/** One arm's runs: the per-seed summaries and RL metrics lines, in seed order. */
export interface VariantRuns {
  variant: AblationVariant;
  seeds: number[];
  summaries: RunSummary[];
  curves: RlStepMetrics[][];
}

type SummaryColumn = (typeof summaryColumns)[number];
type MechanismColumn = (typeof mechanismColumns)[number];

export type VariantRow = { variant: string; description: string; seeds: number } & Record<
  SummaryColumn | MechanismColumn,
  MeanWithInterval
> & {
    trends: Record<TrendName, { early: MeanWithInterval; late: MeanWithInterval }>;
    /** RunSummary.filterReasons over the seeds, a seed without the key counting 0; keys of every arm. */
    filterReasons: Record<string, MeanWithInterval>;
  };

/** The held-out results the starting policy and each arm have, and the paired table compares. */
const heldOutColumns = ['avgAtK', 'passAtK', 'greedyAccuracy'] as const satisfies readonly SummaryColumn[];
type HeldOutColumn = (typeof heldOutColumns)[number];
export type StartEvaluation = Record<HeldOutColumn, number>;
const isHeldOut = (column: SummaryColumn): column is HeldOutColumn =>
  (heldOutColumns as readonly string[]).includes(column);

/** The paired table's columns: sampled and greedy held-out accuracy. */
const pairedColumns = ['avgAtK', 'greedyAccuracy'] as const satisfies readonly SummaryColumn[];

/** The arm every other arm is compared with, seed by seed. */
export const PAIRED_BASELINE = 'grpo';

/** One arm minus the baseline arm on the same seed (same start, held-out problems and evaluation seeds). */
export type PairedRow = { variant: string; seeds: number[] } & Record<
  (typeof pairedColumns)[number],
  { perSeed: number[] } & MeanWithInterval
>;

/** Each run's late tool calls per trajectory against its held-out results, over every run (arms x seeds). */
export interface ToolCallCorrelations {
  runs: number;
  seeds: number;
  /** Over all runs as they are. */
  pooled: Record<(typeof pairedColumns)[number], CorrelationWithInterval>;
  /**
   * Each run's values minus its seed's mean over the arms, so what a seed's runs share (the held-out problems, the
   * evaluation seeds) does not count: how calls and accuracy go together between arms on the same seed.
   */
  withinSeed: Record<(typeof pairedColumns)[number], CorrelationWithInterval>;
}

export interface AblationTable {
  /** K of Avg@K and Pass@K (eval.samples). */
  samples: number;
  /** The starting policy's held-out results over the same seeds' held-out problems. */
  start: Record<HeldOutColumn, MeanWithInterval>;
  rows: VariantRow[];
  /** Every other arm against PAIRED_BASELINE; empty when the baseline arm did not run. */
  paired: PairedRow[];
  toolCalls: ToolCallCorrelations;
}

const over = <T>(items: readonly T[], pick: (item: T) => number) => meanWithInterval(items.map(pick));

function variantRow({ variant, summaries }: VariantRuns, reasons: readonly string[]): VariantRow {
  const columns = Object.fromEntries(
    [...summaryColumns, ...mechanismColumns].map((column) => [column, over(summaries, (s) => s[column])]),
  ) as Record<SummaryColumn | MechanismColumn, MeanWithInterval>;
  const trends = Object.fromEntries(
    trendNames.map((name) => [
      name,
      {
        early: over(summaries, (s) => s.trends[name].early),
        late: over(summaries, (s) => s.trends[name].late),
      },
    ]),
  ) as VariantRow['trends'];
  return {
    variant: variant.name,
    description: variant.description,
    seeds: summaries.length,
    ...columns,
    trends,
    filterReasons: Object.fromEntries(
      reasons.map((reason) => [reason, over(summaries, (s) => s.filterReasons[reason] ?? 0)]),
    ),
  };
}

/**
 * Each arm minus the baseline, per seed, then mean and 95% interval over the seeds. Pairing removes what a seed
 * shares between arms (its held-out problems, its evaluation samples' seeds), which an unpaired comparison of two
 * arms' intervals counts twice.
 */
export function pairedDifferences(variants: readonly VariantRuns[], baseline = PAIRED_BASELINE): PairedRow[] {
  const base = variants.find((runs) => runs.variant.name === baseline);
  if (base === undefined) return [];
  return variants
    .filter((runs) => runs !== base)
    .map(({ variant, seeds, summaries }) => {
      const against = seeds.map((seed) => {
        const at = base.seeds.indexOf(seed);
        if (at < 0)
          throw new Error(`paired differences: arm ${variant.name} ran seed ${seed}, ${baseline} did not`);
        return base.summaries[at]!;
      });
      const difference = (column: (typeof pairedColumns)[number]) => {
        const perSeed = summaries.map((summary, i) => summary[column] - against[i]![column]);
        return { perSeed, ...meanWithInterval(perSeed) };
      };
      return {
        variant: variant.name,
        seeds: [...seeds],
        avgAtK: difference('avgAtK'),
        greedyAccuracy: difference('greedyAccuracy'),
      };
    });
}

/**
 * Tool calls per trajectory over the late steps (the last quarter) against the held-out results, over every run:
 * the "fewer, deliberate calls do better" claim, where an arm's calls and accuracy are both per run.
 */
export function toolCallCorrelations(variants: readonly VariantRuns[]): ToolCallCorrelations {
  const runs = variants.flatMap(({ seeds, summaries }) =>
    summaries.map((summary, i) => ({ seed: seeds[i]!, summary })),
  );
  const seeds = runs.map((run) => run.seed);
  const calls = runs.map((run) => run.summary.trends.toolCallsPerTrajectory.late);
  const seedCount = new Set(seeds).size;
  const correlations = (within: boolean) =>
    Object.fromEntries(
      pairedColumns.map((column) => {
        const results = runs.map((run) => run.summary[column]);
        return [
          column,
          within
            ? correlationWithInterval(
                centredWithin(calls, seeds),
                centredWithin(results, seeds),
                seedCount - 1,
              )
            : correlationWithInterval(calls, results),
        ];
      }),
    ) as ToolCallCorrelations['pooled'];
  return { runs: runs.length, seeds: seedCount, pooled: correlations(false), withinSeed: correlations(true) };
}

export function ablationTable(
  start: readonly StartEvaluation[],
  variants: readonly VariantRuns[],
  samples: number,
): AblationTable {
  const reasons = [
    ...new Set(variants.flatMap(({ summaries }) => summaries.flatMap((s) => Object.keys(s.filterReasons)))),
  ].sort();
  return {
    samples,
    start: {
      avgAtK: over(start, (s) => s.avgAtK),
      passAtK: over(start, (s) => s.passAtK),
      greedyAccuracy: over(start, (s) => s.greedyAccuracy),
    },
    rows: variants.map((runs) => variantRow(runs, reasons)),
    paired: pairedDifferences(variants),
    toolCalls: toolCallCorrelations(variants),
  };
}

/** How a column is printed: its header, and shares as percentages (points for differences). */
interface Format {
  header: string;
  percent: boolean;
  digits: number;
}
const share = (header: string): Format => ({ header, percent: true, digits: 1 });
const count = (header: string, digits: number): Format => ({ header, percent: false, digits });

const formats = (k: number): Record<SummaryColumn | MechanismColumn | TrendName, Format> => ({
  avgAtK: share(`held-out Avg@${k}`),
  passAtK: share(`held-out Pass@${k}`),
  greedyAccuracy: share('held-out greedy'),
  gradNormVariance: count('grad-norm variance', 3),
  validCodeRatio: share('valid-code ratio'),
  toolCallsPerTrajectory: count('tool calls / traj', 3),
  toolErrorsInCorrect: share('tool errors in correct'),
  responseTokens: count('response tokens', 0),
  entropy: count('entropy (nats)', 3),
  finalTrainAccuracy: share('train acc, last 25%'),
  generatedPerStep: count('generated / step', 1),
  trainedPerStep: count('trained / step', 1),
  allFailedCorrect: share('all-failed-but-right'),
  c1DroppedPerStep: count('C1 drops / step', 1),
  decisionPointBonusTokens: count('bonus at decision points / step', 1),
  decisionPointBonusShare: share('share of bonus at decision points'),
  decisionPointEntropy: count('decision-point entropy', 3),
  direct: share('direct'),
  tool: share('tool'),
  recovered: share('recovered'),
  'gave-up': share('gave-up'),
  'stopped-early': share('stopped-early'),
});

/** A number as the column prints it; '-' when there is none (NaN: nothing to measure). */
function formatNumber(format: Format, value: number, signed = false): string {
  if (Number.isNaN(value)) return '-';
  const text = (value * (format.percent ? 100 : 1)).toFixed(format.digits);
  // A difference that rounds to zero has no sign (not "-0.0" from a rounding error of -1e-17).
  if (Number(text) === 0) return (0).toFixed(format.digits);
  return signed && value > 0 ? `+${text}` : text;
}

/** A correlation (or a bound of its interval), signed, to 2 decimals. */
const signedTwoDecimals = (value: number) => formatNumber(count('', 2), value, true);

/** Mean ± 95% CI half-width (the mean alone with one seed). */
function cell(format: Format, value: MeanWithInterval, signed = false): string {
  const m = formatNumber(format, value.mean, signed);
  return Number.isNaN(value.halfWidth) || m === '-' ? m : `${m} ± ${formatNumber(format, value.halfWidth)}`;
}

/** One table of the report: what it shows (empty for the main table), then its rows of cells, the header first. */
export interface ReportTable {
  caption: string;
  cells: string[][];
}

/** The report's tables: mean ± 95% CI half-width over seeds (Student t), percentages for shares. */
export function ablationTables(table: AblationTable): ReportTable[] {
  const f = formats(table.samples);
  const main = [
    ['variant', 'seeds', ...summaryColumns.map((column) => f[column].header)],
    [
      'SFT start (no RL)',
      String(table.start.avgAtK.n),
      ...summaryColumns.map((column) => (isHeldOut(column) ? cell(f[column], table.start[column]) : '')),
    ],
    ...table.rows.map((row) => [
      row.variant,
      String(row.seeds),
      ...summaryColumns.map((column) => cell(f[column], row[column])),
    ]),
  ];
  const tables: ReportTable[] = [{ caption: '', cells: main }];
  if (table.paired.length > 0) {
    const seeds = table.paired[0]!.seeds.join(' / ');
    tables.push({
      caption:
        `Paired by seed: each arm minus ${PAIRED_BASELINE} on the same seed (same start policy, held-out ` +
        'problems and evaluation seeds), in points; mean ± 95% CI half-width over the seeds.',
      cells: [
        [
          `arm - ${PAIRED_BASELINE}`,
          `Δ Avg@${table.samples}`,
          `per seed (${seeds})`,
          'Δ greedy',
          `per seed (${seeds})`,
        ],
        ...table.paired.map((row) => [
          row.variant,
          ...pairedColumns.flatMap((column) => [
            cell(f[column], row[column], true),
            row[column].perSeed.map((d) => formatNumber(f[column], d, true)).join(' / '),
          ]),
        ]),
      ],
    });
  }
  tables.push({
    caption:
      'Rollout budget and mechanisms, means over the RL steps: trajectories generated and trained on per step; ' +
      'the share of generated trajectories whose calls all failed but whose answer was right (what C1 removes) and ' +
      'what C1 dropped; the post-tool decision points (first token after a successful call) that got the entropy ' +
      'bonus, their share of all bonus tokens, and the rollout entropy there.',
    cells: [
      ['variant', 'seeds', ...mechanismColumns.map((column) => f[column].header)],
      ...table.rows.map((row) => [
        row.variant,
        String(row.seeds),
        ...mechanismColumns.map((column) => cell(f[column], row[column])),
      ]),
    ],
  });
  const reasons = Object.keys(table.rows[0]?.filterReasons ?? {});
  if (reasons.length > 0)
    tables.push({
      caption:
        "The filters' verdicts: trajectories per step each action took for each reason (drop: left the batch " +
        'before the group statistics; mask: kept in its group, its loss zeroed; resample: left out of an ' +
        'oversampled group), mean over the RL steps.',
      cells: [
        ['variant', 'seeds', ...reasons],
        ...table.rows.map((row) => [
          row.variant,
          String(row.seeds),
          ...reasons.map((reason) => cell(count('', 2), row.filterReasons[reason]!)),
        ]),
      ],
    });
  const { toolCalls } = table;
  const correlation = ({ r, low, high }: CorrelationWithInterval) =>
    Number.isNaN(r)
      ? '-'
      : `${signedTwoDecimals(r)}${Number.isNaN(low) ? '' : ` [${signedTwoDecimals(low)}, ${signedTwoDecimals(high)}]`}`;
  tables.push({
    caption:
      `Tool calls and held-out results over the ${toolCalls.runs} runs (${toolCalls.seeds} seeds): Pearson's r of ` +
      "each run's tool calls per trajectory over the last quarter of its steps with its held-out results, with a " +
      "95% interval (Fisher's z); pooled, and within seed (each run minus its seed's mean over the arms, so what " +
      "a seed's runs share does not count).",
    cells: [
      ['runs', `r with Avg@${table.samples}`, 'r with greedy'],
      ...(['pooled', 'withinSeed'] as const).map((kind) => [
        kind === 'pooled' ? 'pooled' : 'within seed',
        ...pairedColumns.map((column) => correlation(toolCalls[kind][column])),
      ]),
    ],
  });
  tables.push({
    caption:
      'Over training: first quarter -> last quarter of the RL steps, mean over seeds (intervals in ablation.json); ' +
      'strategy shares of the generated trajectories.',
    cells: [
      ['variant', ...trendNames.map((name) => f[name].header)],
      ...table.rows.map((row) => [
        row.variant,
        ...trendNames.map(
          (name) =>
            `${formatNumber(f[name], row.trends[name].early.mean)} -> ${formatNumber(f[name], row.trends[name].late.mean)}`,
        ),
      ]),
    ],
  });
  return tables;
}

export function ablationMarkdown(table: AblationTable): string {
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  return ablationTables(table)
    .map(({ caption, cells: [header, ...rows] }) =>
      [
        ...(caption === '' ? [] : [caption, '']),
        line(header!),
        line(header!.map(() => '---')),
        ...rows.map(line),
      ].join('\n'),
    )
    .join('\n\n');
}

function ablationHtmlTables(table: AblationTable): string[] {
  const line = (cells: readonly string[], tag: string) =>
    `<tr>${cells.map((c) => `<${tag}>${escapeHtml(c)}</${tag}>`).join('')}</tr>`;
  return ablationTables(table).map(
    ({ caption, cells: [header, ...rows] }) =>
      `${caption === '' ? '' : `<p>${escapeHtml(caption)}</p>`}<table><thead>${line(header!, 'th')}</thead>` +
      `<tbody>${rows.map((r) => line(r, 'td')).join('')}</tbody></table>`,
  );
}

/** Mean over seeds of a per-step statistic, one series per arm. */
function curveRows(variants: readonly VariantRuns[], pick: (line: RlStepMetrics) => number) {
  return variants.flatMap(({ variant, curves }) => {
    const steps = Math.min(...curves.map((lines) => lines.length));
    return Array.from({ length: steps }, (_, i) => ({
      step: curves[0]![i]!.step,
      series: variant.name,
      value: curves.reduce((sum, lines) => sum + pick(lines[i]!), 0) / curves.length,
    }));
  });
}

/** The learning curves, mean over seeds, one series per arm; each has a file name for its SVG. */
export function ablationCharts(variants: readonly VariantRuns[]): { name: string; spec: TopLevelSpec }[] {
  const chart = (name: string, title: string, y: string, pick: (line: RlStepMetrics) => number) => ({
    name,
    spec: lineChart(title, curveRows(variants, pick), y),
  });
  return [
    chart('train-accuracy', 'Training accuracy (mean over seeds)', 'accuracy', (l) => l.accuracy),
    chart('entropy', 'Rollout entropy', 'nats / token', (l) => l.entropy),
    chart('tool-calls', 'Tool calls per trajectory', 'calls', (l) => l.toolCallsPerTrajectory),
    chart('valid-code', 'Valid-code ratio', 'share', (l) => l.validCodeRatio),
    chart('response-tokens', 'Response length', 'tokens', (l) => l.responseTokens),
    chart('grad-norm', 'Gradient norm', 'global norm', (l) => l.gradNorm),
  ];
}

/** Writes ablation.json, ablation.md, ablation.html (tables plus learning curves) and charts/*.svg into `dir`. */
export async function writeAblationReport(
  dir: string,
  table: AblationTable,
  variants: readonly VariantRuns[],
  note: string,
): Promise<{ json: string; markdown: string; html: string }> {
  const markdown = ablationMarkdown(table);
  const paths = {
    json: `${dir}/ablation.json`,
    markdown: `${dir}/ablation.md`,
    html: `${dir}/ablation.html`,
  };
  writeFileAtomic(paths.json, `${JSON.stringify({ note, ...table }, null, 2)}\n`);
  writeFileAtomic(paths.markdown, `${note}\n\n${markdown}\n`);
  const charts = ablationCharts(variants);
  const svgs = await Promise.all(charts.map((chart) => renderSvg(chart.spec)));
  mkdirSync(join(dir, 'charts'), { recursive: true });
  charts.forEach((chart, i) => {
    writeFileAtomic(join(dir, 'charts', `${chart.name}.svg`), svgs[i]!);
  });
  writeFileAtomic(
    paths.html,
    htmlPage('taorl ablation', [
      `<p>${escapeHtml(note)}</p>`,
      ...ablationHtmlTables(table),
      ...svgs.map((svg) => `<figure>${svg}</figure>`),
    ]),
  );
  return paths;
}
