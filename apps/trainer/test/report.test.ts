import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  type EvalMetrics,
  formatDuration,
  MetricsWriter,
  ProgressBar,
  parseConfig,
  type RlStepMetrics,
  readMetrics,
  renderReport,
  reportSpecs,
  runSummary,
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
  const evalLine = (label: string, accuracy: number, fields: Partial<EvalMetrics> = {}): EvalMetrics => ({
    phase: 'eval',
    step: 3,
    label,
    problems: 400,
    accuracy,
    passAtK: accuracy + 0.1,
    toolCallsPerTrajectory: 1,
    toolSuccessRate: 1,
    responseTokens: 60,
    seconds: 12,
    ...fields,
  });
  const svgsOf = (html: string) => html.match(/<svg[\s\S]*?<\/svg>/g) ?? [];
  const chart = (html: string, title: string) => svgsOf(html).find((svg) => svg.includes(`>${title}<`));

  it('draws learning curves and the time split as inline SVG with vega-lite', async () => {
    const html = await renderReport('run & report', [
      rlLine(1, 0.2),
      rlLine(2, 0.4),
      { ...rlLine(3, 0.5), lossMetrics: { cappedFraction: 0.25 }, filterMetrics: { 'cap.meanTokens': 30 } },
      evalLine('RL <final>', 0.7),
    ]);
    expect(html).toContain('<title>run &amp; report</title>');
    expect(html).toContain('RL &lt;final&gt;');
    expect(html).toContain('70.0%');
    // What a plug-in loss and filter report of their own is drawn, one series each.
    const own = chart(html, "The loss's, filters' and shaper's own metrics");
    expect(own).toContain('aria-label="RL step: 3; value: 0.25; series: loss.cappedFraction"');
    expect(own).toContain('aria-label="RL step: 3; value: 30; series: filters.cap.meanTokens"');
    expect(
      chart(await renderReport('plain', [rlLine(1, 0.2)]), "The loss's, filters' and shaper's own metrics"),
    ).toBe(undefined);
    const timeSplit = chart(html, 'Time split per RL step');
    for (const part of ['generation', 'sandbox', 'scoring', 'training']) expect(timeSplit).toContain(part);
    // One bar per step and part, carrying the seconds computed from the metrics (800 ms -> 0.8 s; other = 30 ms).
    const bars = timeSplit!.match(/aria-label="RL step: \d+; seconds: [^"]*"/g) ?? [];
    expect(bars).toHaveLength(3 * 5);
    expect(bars).toContain('aria-label="RL step: 2; seconds: 0.8; series: generation"');
    expect(bars).toContain('aria-label="RL step: 1; seconds: 0.03; series: other"');
    // A loss, a ratio and a fraction no longer share an axis.
    for (const title of ['Clipped tokens', 'Policy loss', 'Gradient norm', 'Rollout entropy'])
      expect(chart(html, title)).toBeDefined();
  });

  it('answers what ran, how it went, what each mechanism did and how it compares with its baselines (issue 51)', async () => {
    const summary = runSummary(
      parseConfig('seed: 7\neval: {samples: 2}\nrl: {filters: [tool-aware]}\n', 'r.yaml'),
      'abc123',
    );
    // The demo's layout: SFT steps 1-3, RL steps 4-5 numbered on from SFT's, a more-SFT baseline from step 3.
    const sft = (step: number, loss: number, branch?: string) => ({
      phase: 'sft' as const,
      step,
      loss,
      lr: 1e-3,
      gradNorm: 1,
      tokens: 100,
      tokensPerSecond: 1000,
      time: { trainingMs: 100, totalMs: 100 },
      ...(branch === undefined ? {} : { branch }),
    });
    const rl = (step: number): RlStepMetrics => ({
      ...rlLine(step, 0.5),
      trajectoriesGenerated: 64,
      filterDrops: { 'all-tool-calls-failed': 8 },
      decisionPoints: { count: 10, meanEntropy: 0.9, bonusTokens: 4 },
      bonus: { tokens: 8, mean: 0.05, max: 0.2 },
      strategies: { direct: 0.25, tool: 0.75 } as RlStepMetrics['strategies'],
    });
    const lines = [
      sft(1, 2),
      sft(2, 1.5),
      sft(3, 1.2),
      evalLine('SFT', 0.5, { step: 3 }),
      evalLine('SFT (greedy)', 0.55, { step: 3, greedy: true }),
      rl(4),
      rl(5),
      evalLine('SFT + RL', 0.8, { step: 5 }),
      sft(4, 1.1, 'more SFT (baseline)'),
      sft(5, 1.0, 'more SFT (baseline)'),
      evalLine('SFT + more SFT', 0.6, { step: 5 }),
    ];
    const html = await renderReport('demo', lines, summary);
    // What ran: the config's algorithm, seed and commit.
    for (const cell of [
      '<td>seed</td><td>7</td>',
      '<td>commit</td><td>abc123</td>',
      '<td>filters</td><td>tool-aware</td>',
    ])
      expect(html).toContain(cell);
    expect(html).toContain(
      `<td>estimator</td><td>${summary.rows.find(([what]) => what === 'estimator')![1]}</td>`,
    );
    // Held-out: Avg@2 named, a standard error (sqrt(0.5 * 0.5 / 400) = 2.5%), no Pass@k for a greedy row.
    expect(html).toContain('<th>accuracy (Avg@2)</th><th>Pass@2</th>');
    expect(html).toContain('<td>50.0% ± 2.5%</td><td>60.0%</td>');
    expect(html).toMatch(
      /<td>SFT \(greedy\)<\/td><td>greedy, 1 sample<\/td><td>400<\/td><td>55\.0% ± 2\.5%<\/td><td>–<\/td>/,
    );
    const heldOut = chart(html, 'Held-out accuracy by policy (95% interval)');
    for (const policy of ['SFT + RL', 'SFT + more SFT']) expect(heldOut).toContain(policy);
    // The baseline is its own line, with a rule where it branches off; the RL axis counts RL steps from 1.
    const sftChart = chart(html, 'SFT: cross-entropy on policy tokens')!;
    expect(sftChart).toContain('aria-label="SFT step: 3; loss (nats/token): 1.2; series: SFT"');
    expect(sftChart).toContain(
      'aria-label="SFT step: 4; loss (nats/token): 1.1; series: more SFT (baseline)"',
    );
    expect(sftChart).toContain('more SFT (baseline) branches off at step 3');
    const acted = chart(html, 'What TAO-RL acted on')!;
    expect(acted).toContain(
      'RL step (after 3 steps of training): 1; share: 0.125; series: dropped or masked by C1',
    );
    expect(acted).toContain(
      'RL step (after 3 steps of training): 2; share: 0.4; series: decision points with the bonus',
    );
    expect(acted).toContain('share: 0.5; series: bonus tokens at decision points');
    expect(chart(html, 'Rollout entropy')).toContain('nats: 0.9; series: post-tool decision points');
    expect(chart(html, 'Strategy shares of the rollouts')).toContain(
      'share of trajectories: 0.75; series: tool',
    );
    expect(chart(html, 'Tool calls per trajectory')).toContain('calls: 1.1; series: tool calls');
    // Whole steps on every line chart's step axis: no fractional ticks on a short run.
    const stepAxes = reportSpecs(lines).flatMap((spec) => {
      const unit = ('layer' in spec ? spec.layer[0] : spec) as {
        encoding?: { x?: { type?: string; axis?: object } };
      };
      const x = unit.encoding?.x;
      return x?.type === 'quantitative' ? [x.axis] : [];
    });
    expect(stepAxes.length).toBeGreaterThan(5);
    for (const axis of stepAxes) expect(axis).toMatchObject({ tickMinStep: 1, format: 'd' });
  });
});
