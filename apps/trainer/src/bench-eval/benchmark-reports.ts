import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchmarkReport } from '@taorl/eval';
import { lineChart, renderSvg } from '../report/charts.js';
import { escapeHtml } from '../report/escape-html.js';
import { htmlPage } from '../report/html-page.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import type { BenchmarkEvalResult } from './evaluate-benchmarks.js';

const TITLE = 'Benchmark evaluation';

/** The settings behind the numbers, one line. */
function settingsLine({ config, samples }: BenchmarkEvalResult): string {
  const { sampling } = config;
  return [
    `model ${config.model}`,
    `K = ${config.k}`,
    `temperature ${sampling.temperature}, top-p ${sampling.topP}, top-k ${sampling.topK === 0 ? 'off' : sampling.topK}`,
    `tool format ${config.toolFormat}`,
    `max ${config.maxTurns} tool calls`,
    `max ${config.maxResponseTokens} response tokens`,
    `seed ${config.seed}`,
    ...(config.codeJudgeMode === undefined
      ? []
      : [`livecodebench judged in the ${config.codeJudgeMode} mode`]),
    `${samples} samples${config.limit === null ? '' : ` (first ${config.limit} problems per benchmark)`}`,
  ].join(' · ');
}

/**
 * The benchmarks' markdown rows (@taorl/eval's scoreBenchmark tables) under one header; benchmarks whose columns
 * differ (another K) start a table of their own.
 */
export function benchmarkTable(reports: readonly BenchmarkReport[]): string {
  const tables: { header: string; rows: string[] }[] = [];
  for (const report of reports) {
    const [title = '', rule = '', row = ''] = report.markdown.split('\n');
    const header = `${title}\n${rule}`;
    const table = tables.at(-1);
    if (table?.header === header) table.rows.push(row);
    else tables.push({ header, rows: [row] });
  }
  return tables.map((table) => [table.header, ...table.rows].join('\n')).join('\n\n');
}

/** report.md: the settings and one table of every benchmark. */
export function benchmarkMarkdown(result: BenchmarkEvalResult): string {
  return `# ${TITLE}\n\n${settingsLine(result)}\n\n${benchmarkTable(result.reports)}\n`;
}

const cells = (line: string): string[] =>
  line
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split('|')
    .map((cell) => escapeHtml(cell.trim()));

/** A markdown table as an HTML table (the separator line dropped). */
function htmlTable(markdown: string): string {
  const [header = '', , ...rows] = markdown.split('\n');
  const head = cells(header)
    .map((cell) => `<th>${cell}</th>`)
    .join('');
  const body = rows.map(
    (row) =>
      `<tr>${cells(row)
        .map((cell) => `<td>${cell}</td>`)
        .join('')}</tr>`,
  );
  return `<table><thead><tr>${head}</tr></thead><tbody>${body.join('')}</tbody></table>`;
}

/** report.html: the table and the Pass@k curve of each benchmark, as inline SVG (opens offline). */
export async function renderBenchmarkHtml(result: BenchmarkEvalResult): Promise<string> {
  const rows = result.reports.flatMap((report) =>
    Object.entries(report.passAtK).map(([k, value]) => ({
      step: Number(k),
      series: report.benchmark,
      value,
    })),
  );
  const chart = await renderSvg(lineChart('Pass@k per benchmark', rows, 'Pass@k', 'k'));
  return htmlPage(TITLE, [
    `<p>${escapeHtml(settingsLine(result))}</p>`,
    ...benchmarkTable(result.reports).split('\n\n').map(htmlTable),
    `<figure>${chart}</figure>`,
  ]);
}

export interface BenchmarkReportPaths {
  json: string;
  markdown: string;
  html: string;
}

/** Writes report.json (config and metrics), report.md and report.html into `dir`, each atomically. */
export async function writeBenchmarkReports(
  dir: string,
  result: BenchmarkEvalResult,
): Promise<BenchmarkReportPaths> {
  mkdirSync(dir, { recursive: true });
  const paths = {
    json: join(dir, 'report.json'),
    markdown: join(dir, 'report.md'),
    html: join(dir, 'report.html'),
  };
  const reports = result.reports.map(({ markdown, ...metrics }) => metrics);
  const json = { config: result.config, samples: result.samples, reports };
  writeFileAtomic(paths.json, `${JSON.stringify(json, null, 2)}\n`);
  writeFileAtomic(paths.markdown, benchmarkMarkdown(result));
  writeFileAtomic(paths.html, await renderBenchmarkHtml(result));
  return paths;
}
