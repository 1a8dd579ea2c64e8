import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import type { RlStepMetrics } from '../rl/step-metrics.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { escapeHtml } from './escape-html.js';
import { filterTable } from './filter-table.js';
import type { EvalMetrics, MetricsLine, SftStepMetrics } from './metrics.js';

type Row = Record<string, number | string>;

const width = 560;
const height = 220;

/** Lines of rows { step, series, value }; `x` titles the step axis (e.g. "k" for Pass@k curves). */
export function lineChart(title: string, rows: Row[], y: string, x = 'step'): TopLevelSpec {
  return {
    title,
    width,
    height,
    data: { values: rows },
    mark: { type: 'line', point: true },
    encoding: {
      x: { field: 'step', type: 'quantitative', title: x },
      y: { field: 'value', type: 'quantitative', title: y },
      color: { field: 'series', type: 'nominal', title: null },
    },
  };
}

function stackedBars(title: string, rows: Row[], y: string): TopLevelSpec {
  return {
    title,
    width,
    height,
    data: { values: rows },
    mark: 'bar',
    encoding: {
      x: { field: 'step', type: 'ordinal', title: 'step' },
      y: { field: 'value', type: 'quantitative', title: y, stack: 'zero' },
      color: { field: 'series', type: 'nominal', title: null },
    },
  };
}

/** Rows of the picked values; a line without a value (undefined) leaves a gap. */
function series(
  lines: readonly RlStepMetrics[],
  pick: Record<string, (line: RlStepMetrics) => number | undefined>,
): Row[] {
  return lines.flatMap((line) =>
    Object.entries(pick).flatMap(([name, get]) => {
      const value = get(line);
      return value === undefined ? [] : [{ step: line.step, series: name, value }];
    }),
  );
}

/** The metrics the loss, the filters and the shaper report of their own, one series each (`loss.pgLoss`, ...). */
function pluginMetricRows(lines: readonly RlStepMetrics[]): Row[] {
  return lines.flatMap((line) =>
    (
      [
        ['loss', line.lossMetrics],
        ['filters', line.filterMetrics],
        ['shaper', line.shaperMetrics],
      ] as const
    ).flatMap(([part, metrics]) =>
      Object.entries(metrics ?? {}).map(([name, value]) => ({
        step: line.step,
        series: `${part}.${name}`,
        value,
      })),
    ),
  );
}

/** The report's charts as vega-lite specs (exported so a notebook or browser can re-render them). */
export function reportSpecs(lines: readonly MetricsLine[]): TopLevelSpec[] {
  const rl = lines.filter((line): line is RlStepMetrics => line.phase === 'rl');
  const sft = lines.filter((line): line is SftStepMetrics => line.phase === 'sft');
  const specs: TopLevelSpec[] = [];
  if (sft.length > 0) {
    const rows = sft.map((line) => ({ step: line.step, series: 'SFT loss', value: line.loss }));
    specs.push(lineChart('SFT: cross-entropy on policy tokens', rows, 'loss (nats/token)'));
  }
  if (rl.length > 0) {
    specs.push(
      lineChart(
        'RL learning curves',
        series(rl, {
          reward: (l) => l.reward,
          accuracy: (l) => l.accuracy,
          'tool success rate': (l) => l.toolSuccessRate,
          'valid-code ratio': (l) => l.validCodeRatio,
        }),
        'share',
      ),
      stackedBars(
        'Time split per RL step',
        series(rl, {
          generation: (l) => l.time.generationMs / 1000,
          sandbox: (l) => l.time.sandboxMs / 1000,
          scoring: (l) => l.time.scoringMs / 1000,
          training: (l) => l.time.trainingMs / 1000,
          other: (l) =>
            Math.max(
              0,
              (l.time.totalMs -
                l.time.generationMs -
                l.time.sandboxMs -
                l.time.scoringMs -
                l.time.trainingMs) /
                1000,
            ),
        }),
        'seconds',
      ),
      lineChart(
        'Entropy, clipping and grad norm',
        series(rl, {
          'rollout entropy': (l) => l.entropy,
          'clip fraction (high)': (l) => l.clipFracHigh,
          'clip fraction (low)': (l) => l.clipFracLow,
          'grad norm': (l) => l.gradNorm,
        }),
        'value',
      ),
      stackedBars(
        'Trajectories dropped per filter reason',
        rl.flatMap((line) =>
          Object.entries(line.filterDrops).map(([reason, count]) => ({
            step: line.step,
            series: reason,
            value: count,
          })),
        ),
        'trajectories',
      ),
    );
    const own = pluginMetricRows(rl);
    if (own.length > 0) specs.push(lineChart("The loss's, filters' and shaper's own metrics", own, 'value'));
  }
  return specs;
}

export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

function evalTable(evals: readonly EvalMetrics[]): string {
  if (evals.length === 0) return '';
  const rows = evals
    .map(
      (e) =>
        `<tr><td>${escapeHtml(e.label)}</td><td>${e.problems}</td><td>${(100 * e.accuracy).toFixed(1)}%</td>` +
        `<td>${(100 * e.passAtK).toFixed(1)}%</td><td>${e.toolCallsPerTrajectory.toFixed(2)}</td>` +
        `<td>${(100 * e.toolSuccessRate).toFixed(1)}%</td><td>${e.responseTokens.toFixed(0)}</td></tr>`,
    )
    .join('\n');
  return (
    '<h2>Held-out evaluation</h2><table><thead><tr><th>policy</th><th>problems</th><th>accuracy</th>' +
    '<th>pass@k</th><th>tool calls</th><th>tool success</th><th>response tokens</th></tr></thead>' +
    `<tbody>${rows}</tbody></table>`
  );
}

/** A self-contained HTML page in the reports' style around body parts that are already HTML. */
export function htmlPage(title: string, body: readonly string[]): string {
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    `<title>${escapeHtml(title)}</title>`,
    '<style>body{font-family:system-ui,sans-serif;margin:2rem;max-width:1300px}' +
      'figure{display:inline-block;margin:0 1rem 1rem 0}table{border-collapse:collapse}' +
      'td,th{border:1px solid #ccc;padding:4px 10px;text-align:right}td:first-child{text-align:left}</style>',
    '</head><body>',
    `<h1>${escapeHtml(title)}</h1>`,
    ...body,
    '</body></html>',
    '',
  ].join('\n');
}

/** Renders metrics as a self-contained HTML page (inline SVG charts: opens offline in any browser). */
export async function renderReport(title: string, lines: readonly MetricsLine[]): Promise<string> {
  const svgs = await Promise.all(reportSpecs(lines).map(renderSvg));
  const evals = lines.filter((line): line is EvalMetrics => line.phase === 'eval');
  return htmlPage(title, [
    evalTable(evals),
    filterTable(lines),
    '<h2>Training</h2>',
    ...svgs.map((svg) => `<figure>${svg}</figure>`),
  ]);
}

/** Writes report.html next to metrics.jsonl. */
export async function writeReport(path: string, title: string, lines: readonly MetricsLine[]): Promise<void> {
  writeFileAtomic(path, await renderReport(title, lines));
}
