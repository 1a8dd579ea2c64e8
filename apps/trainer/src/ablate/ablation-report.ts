import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { TopLevelSpec } from 'vega-lite';
import { escapeHtml, htmlPage, lineChart, renderSvg } from '../report/html-report.js';
import type { RlStepMetrics } from '../report/metrics.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { type MeanWithInterval, meanWithInterval } from './confidence.js';
import { type RunSummary, summaryColumns } from './run-summary.js';
import type { AblationVariant } from './variants.js';

/** One arm's runs: the per-seed summaries and RL metrics lines, in seed order. */
export interface VariantRuns {
  variant: AblationVariant;
  seeds: number[];
  summaries: RunSummary[];
  curves: RlStepMetrics[][];
}

export type VariantRow = { variant: string; description: string; seeds: number } & Record<
  (typeof summaryColumns)[number],
  MeanWithInterval
>;

export interface AblationTable {
  /** Held-out Avg@K and Pass@K of the starting (SFT) policy, over the same seeds' evaluation samples. */
  start: { avgAtK: MeanWithInterval; passAtK: MeanWithInterval };
  rows: VariantRow[];
}

export function ablationTable(
  start: readonly { avgAtK: number; passAtK: number }[],
  variants: readonly VariantRuns[],
): AblationTable {
  return {
    start: {
      avgAtK: meanWithInterval(start.map((s) => s.avgAtK)),
      passAtK: meanWithInterval(start.map((s) => s.passAtK)),
    },
    rows: variants.map(({ variant, summaries }) => {
      const columns = Object.fromEntries(
        summaryColumns.map((column) => [column, meanWithInterval(summaries.map((s) => s[column]))]),
      ) as Record<(typeof summaryColumns)[number], MeanWithInterval>;
      return { variant: variant.name, description: variant.description, seeds: summaries.length, ...columns };
    }),
  };
}

const headers: Record<(typeof summaryColumns)[number], string> = {
  avgAtK: 'held-out Avg@K',
  passAtK: 'held-out Pass@K',
  gradNormVariance: 'grad-norm variance',
  validCodeRatio: 'valid-code ratio',
  toolCallsPerTrajectory: 'tool calls / traj',
  responseTokens: 'response tokens',
  entropy: 'entropy (nats)',
  finalTrainAccuracy: 'train acc, last 25%',
};

const percentColumns = new Set(['avgAtK', 'passAtK', 'validCodeRatio', 'finalTrainAccuracy']);

function cell(column: string, value: MeanWithInterval): string {
  const scale = percentColumns.has(column) ? 100 : 1;
  const digits = percentColumns.has(column) ? 1 : column === 'responseTokens' ? 0 : 3;
  const m = (value.mean * scale).toFixed(digits);
  return Number.isNaN(value.halfWidth) ? m : `${m} ± ${(value.halfWidth * scale).toFixed(digits)}`;
}

/** The table as rows of cells, the header first: mean ± 95% CI half-width over seeds; percentages for shares. */
export function ablationCells(table: AblationTable): string[][] {
  const header = ['variant', 'seeds', ...summaryColumns.map((column) => headers[column])];
  const start = [
    'SFT start (no RL)',
    String(table.start.avgAtK.n),
    cell('avgAtK', table.start.avgAtK),
    cell('passAtK', table.start.passAtK),
    ...summaryColumns.slice(2).map(() => ''),
  ];
  const rows = table.rows.map((row) => [
    row.variant,
    String(row.seeds),
    ...summaryColumns.map((column) => cell(column, row[column])),
  ]);
  return [header, start, ...rows];
}

export function ablationMarkdown(table: AblationTable): string {
  const [header, ...rows] = ablationCells(table);
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  return [line(header!), line(header!.map(() => '---')), ...rows.map(line)].join('\n');
}

function ablationHtmlTable(table: AblationTable): string {
  const [header, ...rows] = ablationCells(table);
  const line = (cells: readonly string[], tag: string) =>
    `<tr>${cells.map((c) => `<${tag}>${escapeHtml(c)}</${tag}>`).join('')}</tr>`;
  return `<table><thead>${line(header!, 'th')}</thead><tbody>${rows.map((r) => line(r, 'td')).join('')}</tbody></table>`;
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

/** Writes ablation.json, ablation.md, ablation.html (table plus learning curves) and charts/*.svg into `dir`. */
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
      ablationHtmlTable(table),
      ...svgs.map((svg) => `<figure>${svg}</figure>`),
    ]),
  );
  return paths;
}
