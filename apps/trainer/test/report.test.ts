import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  type EvalMetrics,
  formatDuration,
  MetricsWriter,
  ProgressBar,
  type RlStepMetrics,
  readMetrics,
  renderReport,
} from '../src/index.js';
import { rlLine } from './support/metrics-lines.js';

describe('progress bar', () => {
  it('extrapolates the ETA from the mean time per finished unit', () => {
    let now = 0;
    const lines: string[] = [];
    const bar = new ProgressBar({
      label: 'rl',
      total: 4,
      now: () => now,
      sink: { write: (t) => lines.push(t) },
    });
    now = 10_000;
    bar.tick(1, 'reward 0.50');
    expect(bar.render()).toBe('rl [######------------------] 1/4 00:10 elapsed, ETA 00:30 | reward 0.50');
    now = 20_000;
    bar.tick();
    expect(bar.render()).toContain('2/4 00:20 elapsed, ETA 00:20');
    bar.finish();
    expect(lines.length).toBeGreaterThanOrEqual(2);
    expect(lines.at(-1)).toMatch(/\n$/);
  });

  it('formats durations with hours when needed', () => {
    expect(formatDuration(3_725_000)).toBe('1:02:05');
    expect(formatDuration(Number.NaN)).toBe('--:--');
  });
});

describe('metrics JSONL', () => {
  it('appends one line per step, reads them back, and truncates on resume', () => {
    const dir = mkdtempSync(join(tmpdir(), 'taorl-metrics-'));
    const writer = new MetricsWriter(join(dir, 'metrics.jsonl'));
    for (let step = 1; step <= 4; step++) writer.write(rlLine(step, step / 10));
    expect(readFileSync(writer.path, 'utf8').trim().split('\n')).toHaveLength(4);
    writer.truncateAfter((line) => line.step <= 2);
    writer.write(rlLine(3, 0.33));
    const lines = readMetrics(writer.path);
    expect(lines.map((line) => line.step)).toEqual([1, 2, 3]);
    expect((lines[2] as RlStepMetrics).reward).toBe(0.33);
  });

  it('names the file and line of a malformed line', () => {
    const dir = mkdtempSync(join(tmpdir(), 'taorl-metrics-'));
    const path = join(dir, 'metrics.jsonl');
    writeFileSync(path, `${JSON.stringify(rlLine(1, 0))}\n{oops\n`);
    expect(() => readMetrics(path)).toThrow(`${path}:2: malformed metrics line`);
  });
});

describe('HTML report', () => {
  it('draws learning curves and the time split as inline SVG with vega-lite', async () => {
    const evalLine: EvalMetrics = {
      phase: 'eval',
      step: 3,
      label: 'RL <final>',
      problems: 500,
      accuracy: 0.7,
      passAtK: 0.7,
      toolCallsPerTrajectory: 1,
      toolSuccessRate: 1,
      responseTokens: 60,
      seconds: 12,
    };
    const html = await renderReport('run & report', [
      rlLine(1, 0.2),
      rlLine(2, 0.4),
      { ...rlLine(3, 0.5), lossMetrics: { cappedFraction: 0.25 }, filterMetrics: { 'cap.meanTokens': 30 } },
      evalLine,
    ]);
    expect(html).toContain('<title>run &amp; report</title>');
    expect(html).toContain('RL &lt;final&gt;');
    expect(html).toContain('70.0%');
    const svgs = html.match(/<svg[\s\S]*?<\/svg>/g) ?? [];
    expect(svgs).toHaveLength(5);
    // What a plug-in loss and filter report of their own is drawn, one series each.
    const own = svgs.find((svg) => svg.includes('own metrics'));
    expect(own).toContain('aria-label="step: 3; value: 0.25; series: loss.cappedFraction"');
    expect(own).toContain('aria-label="step: 3; value: 30; series: filters.cap.meanTokens"');
    expect((await renderReport('plain', [rlLine(1, 0.2)])).match(/<svg/g)).toHaveLength(4);
    const timeSplit = svgs.find((svg) => svg.includes('Time split per RL step'));
    expect(timeSplit).toBeDefined();
    for (const part of ['generation', 'sandbox', 'scoring', 'training']) expect(timeSplit).toContain(part);
    // One bar per step and part, carrying the seconds computed from the metrics (800 ms -> 0.8 s; other = 30 ms).
    const bars = timeSplit!.match(/aria-label="step: \d+; seconds: [^"]*"/g) ?? [];
    expect(bars).toHaveLength(3 * 5);
    expect(bars).toContain('aria-label="step: 2; seconds: 0.8; series: generation"');
    expect(bars).toContain('aria-label="step: 1; seconds: 0.03; series: other"');
  });
});
