import { ALL_TOOL_CALLS_FAILED } from '@taorl/filter';
import type { RlStepMetrics } from '@taorl/rl';
import type { TopLevelSpec } from 'vega-lite';
import { lineChart, type Row, stackedBars } from './charts.js';
import type { MetricsLine, SftStepMetrics } from './metrics.js';

/** The series an SFT line belongs to: the run's own SFT, or the baseline branched off it. */
const sftSeries = (line: SftStepMetrics) => line.branch ?? 'SFT';

/** Rows of the picked values at `x(line)`; a line without a value (undefined or NaN) leaves a gap. */
function series(
  lines: readonly RlStepMetrics[],
  x: (line: RlStepMetrics) => number,
  pick: Record<string, (line: RlStepMetrics) => number | undefined>,
): Row[] {
  return lines.flatMap((line) =>
    Object.entries(pick).flatMap(([name, get]) => {
      const value = get(line);
      return value === undefined || Number.isNaN(value) ? [] : [{ step: x(line), series: name, value }];
    }),
  );
}

/** The metrics the loss, the filters and the shaper report of their own, one series each (`loss.pgLoss`, ...). */
function pluginMetricRows(lines: readonly RlStepMetrics[], x: (line: RlStepMetrics) => number): Row[] {
  return lines.flatMap((line) =>
    (
      [
        ['loss', line.lossMetrics],
        ['filters', line.filterMetrics],
        ['shaper', line.shaperMetrics],
      ] as const
    ).flatMap(([part, metrics]) =>
      Object.entries(metrics ?? {}).map(([name, value]) => ({
        step: x(line),
        series: `${part}.${name}`,
        value,
      })),
    ),
  );
}

/** SFT loss: the run's SFT and each baseline branched off it as its own line, a rule where each branches. */
function sftChart(sft: readonly SftStepMetrics[]): TopLevelSpec {
  const rows = sft.map((line) => ({ step: line.step, series: sftSeries(line), value: line.loss }));
  const branches = [...new Set(sft.flatMap((line) => (line.branch === undefined ? [] : [line.branch])))];
  const rules = branches.map((branch) => {
    const from = Math.min(...sft.filter((line) => line.branch === branch).map((line) => line.step)) - 1;
    return { step: from, label: `${branch} branches off at step ${from}` };
  });
  return lineChart('SFT: cross-entropy on policy tokens', rows, 'loss (nats/token)', 'SFT step', { rules });
}

/** Share of a step's generated trajectories that C1 (the execution-validity verdict) dropped or masked. */
function c1Share(line: RlStepMetrics): number | undefined {
  const generated = line.trajectoriesGenerated;
  if (generated === undefined || generated === 0) return undefined;
  const acted =
    (line.filterDrops[ALL_TOOL_CALLS_FAILED] ?? 0) + (line.filterMasks?.[ALL_TOOL_CALLS_FAILED] ?? 0);
  return acted / generated;
}

const ratio = (part: number | undefined, whole: number | undefined) =>
  part === undefined || whole === undefined || whole === 0 ? undefined : part / whole;

/** The RL charts, their x axis counting RL steps from 1 (a run after SFT numbers its lines on from SFT's). */
function rlCharts(rl: readonly RlStepMetrics[]): TopLevelSpec[] {
  const offset = rl[0]!.step - 1;
  const x = (line: RlStepMetrics) => line.step - offset;
  const axis = offset > 0 ? `RL step (after ${offset} steps of training)` : 'RL step';
  const specs: TopLevelSpec[] = [
    lineChart(
      'RL learning curves (the training rollouts)',
      series(rl, x, {
        reward: (l) => l.reward,
        'accuracy (share right)': (l) => l.accuracy,
        'tool success rate': (l) => l.toolSuccessRate,
        'valid-code ratio': (l) => l.validCodeRatio,
      }),
      'share (reward: mean)',
      axis,
    ),
    lineChart(
      'Tool calls per trajectory',
      series(rl, x, { 'tool calls': (l) => l.toolCallsPerTrajectory }),
      'calls',
      axis,
    ),
  ];
  if (rl.some((line) => line.strategies !== undefined)) {
    const rows = rl.flatMap((line) =>
      Object.entries(line.strategies ?? {}).map(([strategy, share]) => ({
        step: x(line),
        series: strategy,
        value: share,
      })),
    );
    specs.push(lineChart('Strategy shares of the rollouts', rows, 'share of trajectories', axis));
  }
  specs.push(
    lineChart(
      'What TAO-RL acted on',
      series(rl, x, {
        "right, every call failed (C1's target)": (l) => l.allFailedCorrect,
        'dropped or masked by C1': c1Share,
        'decision points with the bonus': (l) =>
          ratio(l.decisionPoints?.bonusTokens, l.decisionPoints?.count),
        'bonus tokens at decision points': (l) => ratio(l.decisionPoints?.bonusTokens, l.bonus.tokens),
      }),
      'share',
      axis,
    ),
    lineChart(
      'Rollout entropy',
      series(rl, x, {
        'all policy tokens': (l) => l.entropy,
        'post-tool decision points': (l) =>
          l.decisionPoints?.count ? l.decisionPoints.meanEntropy : undefined,
      }),
      'nats',
      axis,
    ),
    lineChart(
      "The shaper's bonus on the advantage",
      series(rl, x, { 'mean bonus': (l) => l.bonus.mean, 'largest bonus': (l) => l.bonus.max }),
      'advantage units',
      axis,
    ),
    stackedBars(
      'Time split per RL step',
      series(rl, x, {
        generation: (l) => l.time.generationMs / 1000,
        sandbox: (l) => l.time.sandboxMs / 1000,
        scoring: (l) => l.time.scoringMs / 1000,
        training: (l) => l.time.trainingMs / 1000,
        other: (l) =>
          Math.max(
            0,
            (l.time.totalMs - l.time.generationMs - l.time.sandboxMs - l.time.scoringMs - l.time.trainingMs) /
              1000,
          ),
      }),
      'seconds',
      axis,
    ),
    lineChart(
      'Clipped tokens',
      series(rl, x, {
        'clip fraction (high)': (l) => l.clipFracHigh,
        'clip fraction (low)': (l) => l.clipFracLow,
      }),
      'share of policy tokens',
      axis,
    ),
    lineChart('Policy loss', series(rl, x, { loss: (l) => l.loss }), 'loss', axis),
    lineChart('Gradient norm', series(rl, x, { 'grad norm': (l) => l.gradNorm }), 'norm', axis),
    stackedBars(
      'Trajectories dropped per filter reason',
      rl.flatMap((line) =>
        Object.entries(line.filterDrops).map(([reason, count]) => ({
          step: x(line),
          series: reason,
          value: count,
        })),
      ),
      'trajectories',
      axis,
    ),
  );
  const own = pluginMetricRows(rl, x);
  if (own.length > 0)
    specs.push(lineChart("The loss's, filters' and shaper's own metrics", own, 'value', axis));
  return specs;
}

/** The report's charts as vega-lite specs (exported so a notebook or browser can re-render them). */
export function reportSpecs(lines: readonly MetricsLine[]): TopLevelSpec[] {
  const rl = lines.filter((line): line is RlStepMetrics => line.phase === 'rl');
  const sft = lines.filter((line): line is SftStepMetrics => line.phase === 'sft');
  return [...(sft.length > 0 ? [sftChart(sft)] : []), ...(rl.length > 0 ? rlCharts(rl) : [])];
}
