import { checkOptionNames } from './options';
import { toolCallsOf } from './readout';
import { filterRegistry } from './registry';
import { trajectoryFilter } from './trajectory-filter';
import type { Filter, FilterableToolCall } from './types';

/**
 * The tool-call status of an infrastructure failure: the sandbox could not run the call (server unreachable, HTTP
 * 5xx, a transport timeout, a crashed worker, a refused request). @taorl/sandbox's ExecStatus and @taorl/data's
 * ToolCallStatus spell it the same way.
 */
export const INFRA_FAILURE_STATUS = 'sandbox_error';

/** The drop reason of a trajectory that met a tool outage. */
export const TOOL_OUTAGE = 'tool-outage';

/** Whether a call failed in the sandbox itself rather than in the program the model wrote. */
export function isInfraFailure(call: FilterableToolCall): boolean {
  return call.status === INFRA_FAILURE_STATUS;
}

/**
 * Drops every trajectory with at least one call that failed in the sandbox itself. Such a trajectory's later
 * tokens answer an observation the model's code did not produce, and its reward is the outage's, not the
 * policy's: neither is evidence to train on. Always a drop, never a mask: a masked trajectory's reward would still
 * move its group's baseline.
 */
export function toolOutage(options: Record<string, never> = {}): Filter {
  checkOptionNames(TOOL_OUTAGE, options, []);
  return trajectoryFilter(TOOL_OUTAGE, (t, position) =>
    toolCallsOf(t, position).some(isInfraFailure) ? { action: 'drop', reason: TOOL_OUTAGE } : null,
  );
}

filterRegistry.registerBuiltIn(TOOL_OUTAGE, toolOutage);
