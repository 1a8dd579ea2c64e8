import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { CHROMIUM_ARGS, findChromium, NO_CHROMIUM } from '../../../test/support/chromium.js';
import { type EvalMetrics, parseConfig, reportSpecs, runSummary, writeReport } from '../src/index.js';
import { rlLine } from './support/metrics-lines.js';

describe('HTML report in a real browser', () => {
  it('renders every chart with visible marks, loads nothing from outside, and logs no errors', async () => {
    const executablePath = findChromium();
    if (executablePath === null) throw new Error(NO_CHROMIUM);
    const dir = mkdtempSync(join(tmpdir(), 'taorl-report-'));
    const reportPath = join(dir, 'report.html');
    const evalLine: EvalMetrics = {
      phase: 'eval',
      step: 3,
      label: 'after RL',
      problems: 500,
      accuracy: 0.61,
      passAtK: 0.61,
      toolCallsPerTrajectory: 1,
      toolSuccessRate: 0.97,
      responseTokens: 64,
      seconds: 20,
    };
    const lines = [
      rlLine(1, 0.2),
      rlLine(2, 0.35),
      { ...rlLine(3, 0.5), decisionPoints: { count: 10, meanEntropy: 0.8, bonusTokens: 3 } },
      evalLine,
    ];
    const summary = runSummary(parseConfig('seed: 4\n', 'run.yaml'), 'abc123');
    await writeReport(reportPath, 'browser check', lines, summary);
    const browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
    try {
      // Narrower than a chart's natural width (about 800 px with its legend): the charts must shrink to fit.
      const page = await browser.newPage({ viewport: { width: 700, height: 900 } });
      const problems: string[] = [];
      const outsideRequests: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(message.text());
      });
      page.on('pageerror', (error) => problems.push(error.message));
      page.on('request', (request) => {
        if (!request.url().startsWith('file://')) outsideRequests.push(request.url());
      });
      await page.goto(`file://${reportPath}`);

      expect(await page.title()).toBe('browser check');
      const charts = await page.$$eval('svg', (svgs) =>
        svgs.map((svg) => {
          const box = svg.getBoundingClientRect();
          const marks = [...svg.querySelectorAll('path, rect, line')].filter((mark) => {
            const markBox = mark.getBoundingClientRect();
            return markBox.width > 0 || markBox.height > 0;
          });
          return {
            width: box.width,
            height: box.height,
            visibleMarks: marks.length,
            text: svg.textContent ?? '',
          };
        }),
      );
      expect(charts).toHaveLength(reportSpecs(lines).length);
      for (const chart of charts) {
        expect(chart.width).toBeGreaterThan(100);
        expect(chart.width).toBeLessThanOrEqual(700);
        // Legends keep whole labels (vega-lite cuts long ones with an ellipsis by default).
        expect(chart.text).not.toContain('…');
        expect(chart.height).toBeGreaterThan(50);
        expect(chart.visibleMarks).toBeGreaterThan(3);
      }
      expect(charts.some((chart) => chart.text.includes('Time split per RL step'))).toBe(true);
      expect(await page.textContent('body')).toContain('61.0%');
      expect(await page.$eval('html', (html) => html.scrollWidth)).toBeLessThanOrEqual(700);
      expect(await page.textContent('table.summary')).toContain('abc123');

      const screenshot = process.env.TAORL_REPORT_SCREENSHOT ?? join(dir, 'report.png');
      await page.screenshot({ path: screenshot, fullPage: true });
      expect(statSync(screenshot).size).toBeGreaterThan(10_000);
      expect(problems).toEqual([]);
      expect(outsideRequests).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});
