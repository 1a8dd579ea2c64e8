import { escapeHtml } from './escape-html.js';

/**
 * A self-contained HTML page in the reports' style around body parts that are already HTML. Charts scale down with
 * the window (an SVG keeps its aspect ratio) instead of running off a narrow one.
 */
export function htmlPage(title: string, body: readonly string[]): string {
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)}</title>`,
    '<style>body{font-family:system-ui,sans-serif;margin:2rem;max-width:1400px}' +
      'figure{display:inline-block;margin:0 1rem 1rem 0;max-width:100%;vertical-align:top}' +
      'figure svg{max-width:100%;height:auto}table{border-collapse:collapse;margin-bottom:1rem}' +
      'td,th{border:1px solid #ccc;padding:4px 10px;text-align:right}td:first-child,th:first-child{text-align:left}' +
      'table.summary td{text-align:left}p.note{color:#444;max-width:60rem}div.table{overflow-x:auto}</style>',
    '</head><body>',
    `<h1>${escapeHtml(title)}</h1>`,
    ...body,
    '</body></html>',
    '',
  ].join('\n');
}
