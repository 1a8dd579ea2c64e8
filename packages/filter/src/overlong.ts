import { checkMode, checkOptionNames } from './options';
import { filterRegistry } from './registry';
import { trajectoryFilter } from './trajectory-filter';
import type { Filter, FilterMode } from './types';

export interface OverlongFilterOptions {
  /** `mask` (default, DAPO's overlong filtering) or `drop`. */
  readonly mode?: FilterMode;
}

export const TRUNCATED = 'truncated';

/**
 * DAPO's overlong filtering: a response cut at the length budget has no real ending, so its reward says little;
 * mask its loss (default) or drop it. The alternative to the overlong reward penalty of @taorl/advantage.
 */
export function overlongFilter(options: OverlongFilterOptions = {}): Filter {
  const name = 'overlong';
  checkOptionNames(name, options, ['mode']);
  const action = checkMode(name, options.mode ?? 'mask');
  return trajectoryFilter(name, (t) => (t.truncated === true ? { action, reason: TRUNCATED } : null));
}

filterRegistry.registerBuiltIn('overlong', overlongFilter);
