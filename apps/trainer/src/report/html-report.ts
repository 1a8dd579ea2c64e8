import type { TopLevelSpec } from 'vega-lite';
import { writeFileAtomic } from '../util/atomic-write.js';
import { renderSvg } from './charts.js';
import { escapeHtml } from './escape-html.js';
import { filterTable } from './filter-table.js';
import { htmlPage } from './html-page.js';
import type { EvalMetrics, MetricsLine } from './metrics.js';
import { reportSpecs } from './report-specs.js';
import type { RunSummary } from './run-summary.js';

const percent = (share: number) => `${(100 * share).toFixed(1)}%`;

/**
 * The standard error of a held-out accuracy over `problems` problems: sqrt(p (1 - p) / n), an upper bound for an
 * Avg@K (a mean of per-problem shares varies less than a mean of single samples).
 */
export const heldOutStandardError = (accuracy: number, problems: number) =>
  Math.sqrt((accuracy * (1 - accuracy)) / problems);

function summaryTable(summary: RunSummary): string {
  const rows = summary.rows
    .map(([what, value]) => `<tr><td>${escapeHtml(what)}</td><td>${escapeHtml(value)}</td></tr>`)
    .join('\n');
  return `<h2>What ran</h2><div class="table"><table class="summary"><tbody>${rows}</tbody></table></div>`;
}

function evalTable(evals: readonly EvalMetrics[], k: number | null): string {
  if (evals.length === 0) return '';
  const avg = k === null ? 'Avg@K' : `Avg@${k}`;
  const pass = k === null ? 'Pass@K' : `Pass@${k}`;
  const rows = evals
    .map((e) => {
      const se = heldOutStandardError(e.accuracy, e.problems);
      return (
        `<tr><td>${escapeHtml(e.label)}</td><td>${e.greedy === true ? 'greedy, 1 sample' : `sampled, ${k ?? 'K'} each`}</td>` +
        `<td>${e.problems}</td><td>${percent(e.accuracy)} ± ${percent(se)}</td>` +
        `<td>${e.greedy === true ? '–' : percent(e.passAtK)}</td><td>${e.toolCallsPerTrajectory.toFixed(2)}</td>` +
        `<td>${percent(e.toolSuccessRate)}</td><td>${e.responseTokens.toFixed(0)}</td></tr>`
      );
    })
    .join('\n');
  return (
    '<h2>Held-out evaluation</h2>' +
    `<p class="note">Accuracy is ${avg}: the mean over problems of the share of right samples (greedy rows: one ` +
    `sample, so Avg@1), ± its standard error (at most sqrt(p(1-p)/problems)). ${pass} is the chance that at least ` +
    'one of the samples is right (not defined for a greedy row).</p>' +
    `<div class="table"><table><thead><tr><th>policy</th><th>decoding</th><th>problems</th><th>accuracy (${avg})</th>` +
    `<th>${pass}</th><th>tool calls</th><th>tool success</th><th>response tokens</th></tr></thead>` +
    `<tbody>${rows}</tbody></table></div>`
  );
}

/** Each evaluated policy against its baselines: accuracy with a 95% interval, sampled and greedy apart. */
function heldOutChart(evals: readonly EvalMetrics[]): TopLevelSpec | null {
  if (evals.length < 2) return null;
  const rows = evals.map((e) => {
    const half = 1.96 * heldOutStandardError(e.accuracy, e.problems);
    return {
      policy: e.label.replace(/ \(greedy\)$/, ''),
      decoding: e.greedy === true ? 'greedy' : 'sampled',
      accuracy: e.accuracy,
      low: Math.max(0, e.accuracy - half),
      high: Math.min(1, e.accuracy + half),
    };
  });
  const y = { field: 'policy', type: 'nominal', title: null, sort: null } as const;
  const color = { field: 'decoding', type: 'nominal', legend: { orient: 'bottom', title: null } } as const;
  return {
    title: 'Held-out accuracy by policy (95% interval)',
    width: 520,
    data: { values: rows },
    encoding: { y, yOffset: { field: 'decoding' }, color },
    layer: [
      {
        mark: 'rule',
        encoding: {
          x: { field: 'low', type: 'quantitative', title: 'accuracy', scale: { domain: [0, 1] } },
          x2: { field: 'high' },
        },
      },
      {
        mark: { type: 'point', filled: true, size: 60 },
        encoding: { x: { field: 'accuracy', type: 'quantitative' } },
      },
    ],
  };
}

/**
 * Renders metrics as a self-contained HTML page (inline SVG charts: opens offline in any browser): what ran (with
 * `summary`), the held-out table and chart, the filters' table, then the training curves.
 */
export async function renderReport(
  title: string,
  lines: readonly MetricsLine[],
  summary: RunSummary | null = null,
): Promise<string> {
  const evals = lines.filter((line): line is EvalMetrics => line.phase === 'eval');
  const held = heldOutChart(evals);
  const [heldSvg, ...svgs] = await Promise.all(
    [...(held === null ? [] : [held]), ...reportSpecs(lines)].map(renderSvg),
  );
  const charts = held === null ? [heldSvg, ...svgs].filter((svg) => svg !== undefined) : svgs;
  return htmlPage(title, [
    summary === null ? '' : summaryTable(summary),
    evalTable(evals, summary?.evalSamples ?? null),
    held === null ? '' : `<figure>${heldSvg}</figure>`,
    filterTable(lines),
    '<h2>Training</h2>',
    ...charts.map((svg) => `<figure>${svg}</figure>`),
  ]);
}

/** Writes report.html next to metrics.jsonl. */
export async function writeReport(
  path: string,
  title: string,
  lines: readonly MetricsLine[],
  summary: RunSummary | null = null,
): Promise<void> {
  writeFileAtomic(path, await renderReport(title, lines, summary));
}
