import { checkMode, checkOptionNames } from './options';
import { filterRegistry } from './registry';
import { trajectoryFilter } from './trajectory-filter';
import type { Filter, FilterableTrajectory, FilterMode } from './types';

export interface VoidTurnOptions {
  /** `mask` (default, as SimpleTIR's mask_void_turns) or `drop`. */
  readonly mode?: FilterMode;
  /** Override how a void turn is detected; default reads the trajectory's `voidTurn` flag. */
  readonly isVoid?: (trajectory: FilterableTrajectory) => boolean;
}

export const VOID_TURN = 'void-turn';

/**
 * SimpleTIR's void-turn filter: a trajectory with a turn that produced neither a code block nor a final answer
 * is excluded from the loss, since such turns precede collapsing, low-probability continuations.
 */
export function voidTurn(options: VoidTurnOptions = {}): Filter {
  const name = 'void-turn';
  checkOptionNames(name, options, ['mode', 'isVoid']);
  const action = checkMode(name, options.mode ?? 'mask');
  const isVoid = options.isVoid ?? ((t: FilterableTrajectory) => t.voidTurn === true);
  if (typeof isVoid !== 'function') throw new Error(`${name}: option 'isVoid' must be a function`);
  return trajectoryFilter(name, (t) => (isVoid(t) ? { action, reason: VOID_TURN } : null));
}

filterRegistry.registerBuiltIn('void-turn', voidTurn);
