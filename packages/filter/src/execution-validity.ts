import { checkMode, checkOptionNames } from './options';
import { toolCallsOf } from './readout';
import { filterRegistry } from './registry';
import { isInfraFailure, TOOL_OUTAGE } from './tool-outage';
import { trajectoryFilter } from './trajectory-filter';
import type { Filter, FilterMode } from './types';

export interface ExecutionValidityOptions {
  /** `drop` (the TAO-RL paper, default) or `mask` (the public TAO-RL code: zero loss mask, reward kept). */
  readonly mode?: FilterMode;
  /** Trajectories that made no tool call: `keep` (DECISION, default) or `reject` (then treated by `mode`). */
  readonly noToolCalls?: 'keep' | 'reject';
}

export const ALL_TOOL_CALLS_FAILED = 'all-tool-calls-failed';
export const NO_TOOL_CALLS = 'no-tool-calls';

/**
 * TAO-RL's C1: reject a trajectory that made at least one tool call and whose every call failed (status other
 * than `'ok'`). A wrong answer with one successful execution is kept: it still teaches tool use. A call that failed
 * in the sandbox itself (`'sandbox_error'`: an outage, not the model's failed call) is never judged as the
 * model's: its trajectory is dropped as `tool-outage` whatever `mode` says (see `toolOutage`).
 */
export function executionValidity(options: ExecutionValidityOptions = {}): Filter {
  const name = 'execution-validity';
  checkOptionNames(name, options, ['mode', 'noToolCalls']);
  const action = checkMode(name, options.mode ?? 'drop');
  const noToolCalls = options.noToolCalls ?? 'keep';
  if (noToolCalls !== 'keep' && noToolCalls !== 'reject') {
    throw new Error(
      `${name}: option 'noToolCalls' must be 'keep' or 'reject', got ${JSON.stringify(noToolCalls)}`,
    );
  }
  return trajectoryFilter(name, (t, position) => {
    const calls = toolCallsOf(t, position);
    if (calls.some(isInfraFailure)) return { action: 'drop', reason: TOOL_OUTAGE };
    if (calls.length === 0) return noToolCalls === 'reject' ? { action, reason: NO_TOOL_CALLS } : null;
    return calls.some((call) => call.status === 'ok') ? null : { action, reason: ALL_TOOL_CALLS_FAILED };
  });
}

filterRegistry.registerBuiltIn('execution-validity', executionValidity);
