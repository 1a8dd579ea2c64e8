import type { RlStepMetrics } from '@taorl/rl';
import type { ModelClient } from './model/model-client';
import { demoChoices } from './rl/demo-rl';
import type { RlEvent, RlRunRequest } from './rl/demo-run';
import type { DemoTask } from './rl/demo-task';
import type { HeldOut } from './rl/held-out';

// The RL panel: a run of TAO-RL steps on the loaded policy in the model's worker, its curves drawn as each step's
// metrics arrive, and the held-out evaluations (before, every few steps, after) as a curve. The page only draws.

/**
 * What the tests call in the page: an RL run, its events in order; `onEvent` (optional) sees each as it arrives,
 * with when the worker posted it (`wallClock`, comparable with the page's own).
 */
export interface PlaygroundRl {
  run(request: RlRunRequest, onEvent?: (event: RlEvent, postedAt: number) => void): Promise<RlEvent[]>;
}

declare global {
  interface Window {
    taorlRl?: PlaygroundRl;
  }
}

/** The curves of the metrics lines, each a number of a step's line. */
const CURVES: { id: string; label: string; value: (m: RlStepMetrics) => number }[] = [
  { id: 'reward', label: 'reward', value: (m) => m.reward },
  { id: 'tool-calls', label: 'tool calls per trajectory', value: (m) => m.toolCallsPerTrajectory },
  {
    id: 'filter-drops',
    label: 'trajectories the filters dropped (C1)',
    value: (m) => Object.values(m.filterDrops).reduce((a, b) => a + b, 0),
  },
  { id: 'bonus', label: 'tokens the entropy bonus acted on', value: (m) => m.bonus.tokens },
];

/** A polyline of the [step, value] `points` scaled into the svg's 300x60 box, and the last value in words. */
function drawCurve(
  svg: SVGSVGElement,
  caption: HTMLElement,
  label: string,
  points: readonly (readonly [number, number])[],
): void {
  const values = points.map(([, value]) => value);
  const steps = points.map(([step]) => step);
  const low = Math.min(0, ...values);
  const high = Math.max(low + 1e-9, ...values);
  const [first, last] = [Math.min(...steps), Math.max(...steps)];
  const x = (step: number) => (first === last ? 150 : (300 * (step - first)) / (last - first));
  const y = (v: number) => 58 - (56 * (v - low)) / (high - low);
  const line = points.map(([step, v]) => `${x(step).toFixed(1)},${y(v).toFixed(1)}`).join(' ');
  svg.innerHTML = `<title>${label}</title><polyline fill="none" stroke="#3060c0" stroke-width="2" points="${line}" />`;
  const [lastStep, lastValue] = points.at(-1) ?? [0, 0];
  caption.textContent = `${label}: ${lastValue.toFixed(3)} at step ${lastStep} (range ${low.toFixed(3)} to ${high.toFixed(3)})`;
}

/** A held-out result in words. */
const heldOutText = ({ accuracy, problems, toolCallsPerAnswer }: HeldOut) =>
  `${(100 * accuracy).toFixed(1)}% of ${problems} held-out problems, ${toolCallsPerAnswer.toFixed(2)} tool calls per answer`;

/** The request the controls describe, or a message naming the control that is wrong. */
function readControls(element: <T extends HTMLElement>(id: string) => T): RlRunRequest | string {
  const whole = (id: string, min: number) => {
    const text = element<HTMLInputElement>(id).value;
    const value = Number(text);
    return text !== '' && Number.isSafeInteger(value) && value >= min ? value : null;
  };
  const seed = whole('rl-seed', 0);
  const steps = whole('rl-steps', 1);
  const heldOut = whole('rl-held-out', 0);
  const heldOutEvery = whole('rl-held-out-every', 1);
  if (seed === null) return 'seed: a whole number of 0 or more';
  if (steps === null) return 'steps: a whole number of 1 or more';
  if (heldOut === null) return 'held-out problems: a whole number of 0 or more';
  if (heldOutEvery === null) return 'held-out every: a whole number of steps, 1 or more';
  const names = (id: string) =>
    element<HTMLInputElement>(id)
      .value.split(',')
      .map((name) => name.trim())
      .filter((name) => name !== '');
  const [shaper] = names('rl-shaper');
  const [estimator] = names('rl-estimator');
  if (shaper === undefined) return 'shaper: a registry name (e.g. tao, none)';
  if (estimator === undefined) return 'estimator: a registry name (e.g. grpo)';
  return {
    choices: { seed, filters: names('rl-filters'), shaper, estimator },
    steps,
    heldOut,
    heldOutEvery,
  };
}

/**
 * Fills the seed and plug-in controls from the asset's task.json (the demo config's RL settings, as the asset
 * command resolved them) and says so; a task.json that did not load is named and leaves the panel off.
 */
function fillDefaults(element: <T extends HTMLElement>(id: string) => T, task: DemoTask | Error): boolean {
  const note = element('rl-defaults');
  if (task instanceof Error) {
    note.textContent = `RL is off: ${task.message}`;
    note.className = 'failed';
    return false;
  }
  const { seed, filters, shaper, estimator } = demoChoices(task);
  element<HTMLInputElement>('rl-seed').value = String(seed);
  element<HTMLInputElement>('rl-filters').value = filters.join(', ');
  element<HTMLInputElement>('rl-shaper').value = shaper;
  element<HTMLInputElement>('rl-estimator').value = estimator;
  note.textContent =
    'Seed, filters, shaper and estimator default to policy/task.json, the RL settings of the demo config ' +
    '(apps/trainer/configs/demo.yaml) that the asset command wrote; steps and held-out are sized for a tab ' +
    '(the demo config runs more RL steps and evaluates more held-out problems).';
  return true;
}

/**
 * Wires the RL controls to `model`, their defaults from the asset's `task` (task.json, or why it did not load);
 * each run's curves and held-out results drawn as they arrive.
 */
export async function startRlPanel(
  element: <T extends HTMLElement>(id: string) => T,
  model: ModelClient,
  task: Promise<DemoTask | Error>,
): Promise<void> {
  const [button, state, heldOut] = [
    element<HTMLButtonElement>('rl-run'),
    element('rl-state'),
    element('rl-held-out-result'),
  ];
  if (!fillDefaults(element, await task)) return;
  const pyodideURL = new URL('pyodide/', document.baseURI).href;
  const run: PlaygroundRl['run'] = async (request, onEvent) => {
    const events: RlEvent[] = [];
    const lines: RlStepMetrics[] = [];
    const accuracy: [number, number][] = [];
    let before = '';
    heldOut.textContent = '';
    const draw = (id: string, label: string, points: readonly (readonly [number, number])[]) =>
      drawCurve(
        element<SVGSVGElement & HTMLElement>(`curve-${id}`),
        element(`curve-${id}-caption`),
        label,
        points,
      );
    const { seconds } = await model.rl(request, pyodideURL, (event, postedAt) => {
      events.push(event);
      onEvent?.(event, postedAt);
      if (event.type === 'held-out') {
        const { step, result } = event;
        accuracy.push([step, result.accuracy]);
        draw('held-out', 'held-out accuracy', accuracy);
        if (step === 0) before = `before: ${heldOutText(result)}.`;
        const latest = step === request.steps ? 'after' : `after step ${step}`;
        heldOut.textContent = step === 0 ? before : `${before} ${latest}: ${heldOutText(result)}.`;
        return;
      }
      lines.push(event.metrics);
      state.textContent = `step ${event.metrics.step} of ${request.steps}`;
      for (const curve of CURVES) {
        draw(
          curve.id,
          curve.label,
          lines.map((line) => [line.step, curve.value(line)] as const),
        );
      }
    });
    state.textContent = `done: ${lines.length} steps in ${seconds.toFixed(1)} s`;
    return events;
  };
  window.taorlRl = { run };
  button.disabled = false;
  button.addEventListener('click', async () => {
    const request = readControls(element);
    if (typeof request === 'string') {
      state.textContent = request;
      return;
    }
    button.disabled = true;
    state.textContent = 'rolling out in the worker…';
    try {
      await run(request);
    } catch (error) {
      state.textContent = `the run failed: ${(error as Error).message}`;
    }
    button.disabled = false;
  });
}
