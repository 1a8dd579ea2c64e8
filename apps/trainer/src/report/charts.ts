import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';

/** One point of a chart: its x (`step`), its `series` and its `value`. */
export type Row = Record<string, number | string>;

const width = 520;
const height = 200;

// Legends keep their labels whole (vega-lite cuts them at 160 px by default) and sit below the plot, so a long
// series name widens nothing.
const legend = { orient: 'bottom', labelLimit: 0, columns: 2, title: null } as const;

/** An x axis of whole steps: no fractional ticks on a short run. */
const stepAxis = { tickMinStep: 1, format: 'd' } as const;

/** Lines of rows { step, series, value }; `x` titles the step axis (e.g. "k" for Pass@k curves). */
export function lineChart(
  title: string,
  rows: Row[],
  y: string,
  x = 'step',
  extra: { rules?: { step: number; label: string }[] } = {},
): TopLevelSpec {
  const lines = {
    mark: { type: 'line', point: true },
    encoding: {
      x: { field: 'step', type: 'quantitative', title: x, axis: stepAxis },
      y: { field: 'value', type: 'quantitative', title: y },
      color: { field: 'series', type: 'nominal', legend },
    },
  } as const;
  const rules = extra.rules ?? [];
  if (rules.length === 0) return { title, width, height, data: { values: rows }, ...lines };
  return {
    title,
    width,
    height,
    layer: [
      { data: { values: rows }, ...lines },
      {
        data: { values: rules },
        mark: { type: 'rule', strokeDash: [4, 4], color: '#888' },
        encoding: { x: { field: 'step', type: 'quantitative' } },
      },
      {
        data: { values: rules },
        mark: { type: 'text', align: 'left', dx: 4, dy: -4, baseline: 'bottom', color: '#555' },
        encoding: { x: { field: 'step', type: 'quantitative' }, y: { value: 0 }, text: { field: 'label' } },
      },
    ],
  };
}

/** Stacked bars of rows { step, series, value }, one bar per step. */
export function stackedBars(title: string, rows: Row[], y: string, x = 'step'): TopLevelSpec {
  return {
    title,
    width,
    height,
    data: { values: rows },
    mark: 'bar',
    encoding: {
      x: { field: 'step', type: 'ordinal', title: x },
      y: { field: 'value', type: 'quantitative', title: y, stack: 'zero' },
      color: { field: 'series', type: 'nominal', legend },
    },
  };
}

/** A chart as inline SVG (vega renders it in Node, without a canvas). */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}
