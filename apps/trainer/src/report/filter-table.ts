import type { RlStepMetrics } from '@taorl/rl';
import { escapeHtml } from './escape-html.js';
import type { MetricsLine } from './metrics.js';

/**
 * A notice for each configured filter that acted on no trajectory over the run's steps: a filter selected in the
 * config that never fires (a void-turn filter on a policy that never leaves a turn void) is said, not silent.
 */
export function idleFilters(lines: readonly MetricsLine[]): string[] {
  const rl = lines.filter((line): line is RlStepMetrics => line.phase === 'rl');
  const totals = new Map<string, number>();
  for (const line of rl) {
    for (const [filter, count] of Object.entries(line.filterActions ?? {})) {
      totals.set(filter, (totals.get(filter) ?? 0) + count);
    }
  }
  return [...totals].flatMap(([filter, total]) =>
    total === 0
      ? [
          `rl.filters: '${filter}' acted on no trajectory in ${rl.length} RL step(s): it changed nothing in this run`,
        ]
      : [],
  );
}

/** The report's filter section: trajectories dropped, masked and resampled per reason over the run, and idle filters. */
export function filterTable(lines: readonly MetricsLine[]): string {
  const rl = lines.filter((line): line is RlStepMetrics => line.phase === 'rl');
  const rows: string[] = [];
  const actions = [
    ['dropped', (l: RlStepMetrics) => l.filterDrops],
    ['masked', (l: RlStepMetrics) => l.filterMasks],
    ['resampled', (l: RlStepMetrics) => l.filterResamples],
  ] as const;
  for (const [action, of] of actions) {
    const totals = new Map<string, number>();
    for (const line of rl) {
      for (const [reason, n] of Object.entries(of(line) ?? {}))
        totals.set(reason, (totals.get(reason) ?? 0) + n);
    }
    for (const [reason, n] of totals) {
      rows.push(
        `<tr><td>${escapeHtml(reason)}</td><td>${action}</td><td>${n}</td><td>${(n / rl.length).toFixed(2)}</td></tr>`,
      );
    }
  }
  const idle = idleFilters(lines).map((notice) => `<p>${escapeHtml(notice)}</p>`);
  if (rows.length === 0 && idle.length === 0) return '';
  return [
    '<h2>Filters</h2>',
    rows.length === 0
      ? ''
      : '<div class="table"><table><thead><tr><th>reason</th><th>action</th><th>trajectories</th><th>per step</th></tr></thead>' +
        `<tbody>${rows.join('')}</tbody></table></div>`,
    ...idle,
  ].join('\n');
}
